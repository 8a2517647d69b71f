import { afterEach, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomUUID } from 'node:crypto';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { redisWorld } from '../../../test/support/redis-world.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY } from '../../../test/support/gateway.js';
import { CARDS, TEST_SECURITY_CODE } from '../../../test/support/cards.js';
import { GatewayApiError, GatewayClient, shopperSignature, signRequest } from '../src/index.js';

/** The SDK's saved-card calls (docs/checkout.md#saved-cards-for-returning-shoppers) against a gateway on a real Redis, as a merchant's server makes them. */
const world = redisWorld('sdk-saved-cards');
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

async function listening(): Promise<string> {
  const gw = world.gateway('sdk-saved-cards', new ManualClock(Date.now()));
  const server = await new Promise<Server>((resolve) => {
    const s = gw.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the SDK and saved cards', () => {
  it('when the shopper signature is made, then it is SHA-256 of merchant_id, account_id, shopper_id and the key', () => {
    const expected = createHash('sha256').update('10000011000001001shopper-42k', 'utf8').digest('hex');
    expect(shopperSignature('1000001', '1000001001', 'shopper-42', 'k')).toBe(expected);
    expect(signRequest('retrievalCards', { merchant_id: 'm', account_id: 'a', shopper_id: 's' }, 'k').encryption_data).toBe(
      createHash('sha256').update('mask', 'utf8').digest('hex'),
    );
    expect(signRequest('deleteCard', { merchant_id: 'm', account_id: 'a', shopper_id: 's', card_id: 'card_1' }, 'k').encryption_data).toBe(
      createHash('sha256').update('mascard_1k', 'utf8').digest('hex'),
    );
  });

  it('when a checkout names a shopper who saves a card, then retrievalCards lists it and deleteCard removes it, once', async () => {
    const url = await listening();
    const c = new GatewayClient({ baseUrl: url, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY });
    // the client proves shopper_id itself (shopper_signature)
    const checkout = await c.checkout({
      order_no: `SDK-${randomUUID()}`,
      currency: 'USD',
      amount: '5.00',
      open3d: 'no3DS',
      shopper_id: 'sdk-shopper',
      return_url: 'https://shop.example/thanks',
    });
    const card = new URL(checkout.checkout_url).pathname;
    const page = await (await fetch(url + card)).text();
    expect(page).toContain('name="save_card"');
    const paid = await fetch(`${url}${card}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        cardholder: 'Ada Lovelace',
        card: CARDS.approvedMastercard,
        expiration_month: '11',
        expiration_year: '2033',
        security_code: TEST_SECURITY_CODE,
        save_card: '1',
      }),
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);

    const listed = await c.retrievalCards({ shopper_id: 'sdk-shopper' });
    expect(listed.return_status).toBe('1');
    expect(listed.cards).toEqual([
      {
        card_id: expect.stringMatching(/^card_/),
        brand: 'MASTERCARD',
        card_last4: '4444',
        expiry: '11/2033',
        created_date: expect.any(String),
      },
    ]);
    const removed = await c.deleteCard({ shopper_id: 'sdk-shopper', card_id: listed.cards[0]!.card_id });
    expect(removed).toMatchObject({ return_status: '1', card_id: listed.cards[0]!.card_id });
    expect((await c.retrievalCards({ shopper_id: 'sdk-shopper' })).cards).toEqual([]);
    const again = await c.deleteCard({ shopper_id: 'sdk-shopper', card_id: listed.cards[0]!.card_id }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(GatewayApiError);
    expect(again).toMatchObject({ status: 404, code: 'NOT_FOUND', field: 'card_id' });
  });
});
