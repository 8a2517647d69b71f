import { describe, expect, it } from 'vitest';
import { authorisePayment, type PaymentOrder } from '../../../src/core/authorisation/authorise.js';
import { ACCOUNT_ID, makeGateway, MERCHANT_ID } from '../../support/gateway.js';
import { CARDS, TEST_SECURITY_CODE } from '../../support/cards.js';

const order = (return_url: string): PaymentOrder =>
  ({
    order_no: `RET-${return_url.length}-${Math.random()}`,
    currency: 'USD',
    amount: 1000,
    note: '',
    website: '',
    notify_url: '',
    shopper_email: '',
    shopper_ip: '',
    billing_country: '',
    delivery_country: '',
    device_fingerprint: '',
    open3d: 'no3DS',
    token_flag: 'NO',
    token_id: '',
    return_url,
  }) as PaymentOrder;

describe("when a direct payment names its own return address (finding 6, the core's rule)", () => {
  it("then an address off the account's origins is refused with 400 naming return_url, and nothing is stored", async () => {
    const gw = makeGateway({ name: 'return-url-core' });
    const account = gw.deps.merchants.find(MERCHANT_ID, ACCOUNT_ID)!;
    const card = { pan: CARDS.approved, expMonth: '12', expYear: '2034', securityCode: TEST_SECURITY_CODE };
    const evil = order('https://evil.example/back');
    await expect(authorisePayment(gw.deps, { account, order: evil, card, source: 'direct', fingerprint: 'f1' })).rejects.toMatchObject({
      code: 'INVALID_FIELD',
      field: 'return_url',
    });
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, evil.order_no)).toBeUndefined();
    const own = await authorisePayment(gw.deps, {
      account,
      order: order('https://shop.example/back'),
      card,
      source: 'direct',
      fingerprint: 'f2',
    });
    expect(own.payment.return_url).toBe('https://shop.example/back');
  });
});
