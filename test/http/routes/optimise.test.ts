import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { redisWorld } from '../../support/redis-world.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, testMerchants, type TestGateway } from '../../support/gateway.js';
import { authorise } from '../../support/jobs.js';
import { CARDS } from '../../support/cards.js';
import { sign } from '../../support/sign.js';
import type { MerchantsFile } from '../../../src/core/records/directory.js';

const world = redisWorld('optimise');
const OPTIMISE_FIELDS = ['merchant_id', 'account_id', 'request_id', 'currency', 'amount', 'shopper_email'];

/** The test merchants, the first account offering a card, a SEPA transfer (EUR only) and a US-only wallet. */
function merchantsWithMethods(): MerchantsFile {
  const file = testMerchants();
  const account = file.merchants[0]!.accounts[0]! as unknown as Record<string, unknown>;
  account.payment_methods = [
    { pm_id: 'card', apm_type: 'CARD', name: 'Card', brands: ['VISA', 'MASTERCARD'], weight: 50 },
    { pm_id: 'sepa', apm_type: 'SEPA', name: 'SEPA transfer', currencies: ['EUR'], weight: 90 },
    { pm_id: 'paywallet', apm_type: 'WALLET', name: 'PayWallet', countries: ['US'], weight: 40, max_amount_minor: 50_000 },
  ];
  return file;
}

function optimiseBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    merchant_id: MERCHANT_ID,
    account_id: ACCOUNT_ID,
    request_id: randomUUID(),
    currency: 'EUR',
    amount: '25.00',
    billing_country: 'GB',
    shopper_email: 'ada@example.com',
    ...overrides,
  };
  body.encryption_data = sign(
    OPTIMISE_FIELDS.map((f) => body[f]),
    SIGN_KEY,
  );
  return body;
}

async function optimise(gw: TestGateway, body: Record<string, unknown>) {
  return request(gw.app).post('/v1/optimise').type('form').send(JSON.stringify(body));
}

const names = (res: request.Response) => (res.body.payment_methods as { pm_id: string }[]).map((m) => m.pm_id);

describe('POST /v1/optimise', () => {
  it('when nothing is measured yet, then the methods that fit the order come best first by the account weight, signed', async () => {
    const gw = world.gateway('optimise-order', new ManualClock(), { merchants: merchantsWithMethods() });
    const body = optimiseBody();
    const res = await optimise(gw, body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      merchant_id: MERCHANT_ID,
      account_id: ACCOUNT_ID,
      request_id: body.request_id,
      return_status: '1',
      return_message: 'OK',
    });
    // the wallet is for US shoppers only
    expect(names(res)).toEqual(['sepa', 'card']);
    const [sepa, card] = res.body.payment_methods;
    expect(sepa).toMatchObject({ apm_type: 'SEPA', name: 'SEPA transfer', brands: [] });
    expect(card).toMatchObject({ apm_type: 'CARD', brands: ['VISA', 'MASTERCARD'] });
    expect(sepa.score).toBeGreaterThan(card.score);
    expect(card.reasons.join(' ')).toMatch(/assumed 85%/);
    expect(res.body.encryption_data).toBe(sign([MERCHANT_ID, ACCOUNT_ID, '1'], SIGN_KEY));

    const us = await optimise(gw, optimiseBody({ currency: 'USD', billing_country: 'us' }));
    expect(names(us)).toEqual(['card', 'paywallet']);
    const tooMuch = await optimise(gw, optimiseBody({ currency: 'USD', billing_country: 'US', amount: '500.01' }));
    expect(names(tooMuch)).toEqual(['card']);
  });

  it('when card payments from a country were declined, then the measured approval rate moves cards down, with the reason', async () => {
    const gw = world.gateway('optimise-measured', new ManualClock(), { merchants: merchantsWithMethods() });
    const before = await optimise(gw, optimiseBody({ currency: 'USD', billing_country: 'US', card_bin: '400000' }));
    expect(names(before)).toEqual(['card', 'paywallet']);

    for (let i = 0; i < 12; i++) await authorise(gw, { card: CARDS.declined, billing_country: 'US' });
    await authorise(gw, { card: CARDS.approved, billing_country: 'US' });

    const after = await optimise(gw, optimiseBody({ currency: 'USD', billing_country: 'US', card_bin: '400000' }));
    expect(names(after)).toEqual(['paywallet', 'card']);
    const card = after.body.payment_methods[1];
    expect(card.reasons).toContain('card_bin 400000 is a VISA card');
    expect(card.reasons).toContain('approval rate 8% measured over 13 VISA cards from US');
    expect(card.score).toBeLessThan(before.body.payment_methods[0].score);
  });

  it('when the account does not take the currency, then no method is offered and the message says why', async () => {
    const gw = world.gateway('optimise-currency', new ManualClock());
    const res = await optimise(gw, optimiseBody({ currency: 'GBP' }));
    expect(res.status).toBe(200);
    expect(res.body.payment_methods).toEqual([]);
    expect(res.body.return_message).toMatch(/no payment method/);
    // without payment_methods settings, the account's card routing is the one method
    const usd = await optimise(gw, optimiseBody({ currency: 'USD' }));
    expect(usd.body.payment_methods).toMatchObject([{ pm_id: 'card', apm_type: 'CARD' }]);
  });

  it.each([
    [{ billing_country: undefined }, 400, 'billing_country'],
    [{ billing_country: 'GBR' }, 400, 'billing_country'],
    [{ amount: '1.234' }, 400, 'amount'],
    [{ currency: 'JPY', amount: '100.50' }, 400, 'amount'],
    [{ card_bin: '4242' }, 400, 'card_bin'],
  ])('when the order is %j, then it answers %i naming the field', async (overrides, status, field) => {
    const gw = world.gateway('optimise-bad', new ManualClock());
    const body = optimiseBody(overrides);
    const res = await optimise(gw, body);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ field, return_status: '0' });
  });

  it('when the signature is wrong, then it answers 401 and discloses nothing', async () => {
    const gw = world.gateway('optimise-401', new ManualClock());
    const res = await optimise(gw, { ...optimiseBody(), amount: '99.00' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('AUTHENTICATION_FAILED');
    expect(res.body.payment_methods).toBeUndefined();
  });
});
