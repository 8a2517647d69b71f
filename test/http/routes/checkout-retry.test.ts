import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { referenceKind } from '../../../src/core/acquirers/journal.js';
import { acquirerReference } from '../../../src/core/payments/claim.js';
import { MAX_CHECKOUT_ATTEMPTS } from '../../../src/core/authorisation/retry.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY } from '../../support/gateway.js';
import { attributeOf, checkoutBody } from '../../support/checkout.js';
import { CARDS, TEST_SECURITY_CODE } from '../../support/cards.js';
import { FIELDS, sign } from '../../support/sign.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

// "Try another card" after a decline (docs/checkout.md): one payment per order, re-opened by the shopper's next
// card while the session is open; and the shopper's cancel of a 3-D Secure challenge.
const clock = new ManualClock();

const gw = gatewayOnRedis('checkout-retry', { clock });

const path = (url: unknown): string => {
  const u = new URL(String(url));
  return u.pathname + u.search;
};

async function openSession(overrides: Record<string, unknown> = {}) {
  const body = checkoutBody({ notify_url: 'http://127.0.0.1:9/notify', ...overrides }, SIGN_KEY);
  const res = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').send(JSON.stringify(body));
  expect(res.status).toBe(200);
  const card = path(res.body.checkout_url as string);
  return { body, orderNo: String(body.order_no), card, pay: `${card}/pay`, result: `${card}/result` };
}

const cardForm = (card: string, extra: Record<string, string> = {}) => ({
  cardholder: 'Ada Lovelace',
  card,
  expiration_month: '12',
  expiration_year: '2034',
  security_code: TEST_SECURITY_CODE,
  ...extra,
});

const paymentOf = (orderNo: string) => gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, orderNo);
const notices = async (orderNo: string) =>
  (await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, orderNo, 20)).filter((n) => n.notify_type === 'payment');
const ledgerKeys = () => gw.redis.client().keys('*ledger*');
const s4 = () => Math.random().toString(36).slice(2, 10);

/** The signed result the result page hands on (its redirect), checked with the test's own signature rule. */
function signedResult(html: string): Record<string, string> {
  const url = new URL(attributeOf(html, 'result', 'data-redirect')!);
  const q: Record<string, string> = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, ...Object.fromEntries(url.searchParams) };
  expect(q.encryption_data).toBe(
    sign(
      FIELDS.answerPayment.map((f) => q[f]),
      SIGN_KEY,
    ),
  );
  return q;
}

describe('when a card is declined on the hosted card page', () => {
  it('then the result page offers another card and holds the result back until the shopper chooses', async () => {
    const s = await openSession();
    await request(gw.app).post(s.pay).type('form').send(cardForm(CARDS.declined));
    const result = await request(gw.app).get(s.result);
    expect(result.text).toContain('Try another card');
    expect(attributeOf(result.text, 'result', 'data-final')).toBe('false');
    expect(attributeOf(result.text, 'retry', 'href')).toBe(`http://gateway.test${s.card}`);
    // "Continue" still carries the signed decline, for a shopper who gives up
    expect(signedResult(result.text).order_status).toBe('0');
    const card = await request(gw.app).get(s.card);
    expect(card.status).toBe(200);
    expect(card.text).toContain('Your card was declined');
    expect(attributeOf(card.text, 'card-form', 'action')).toBe(`http://gateway.test${s.pay}`);
    expect(card.text).toMatch(/name="attempt" value="1"/);
  });

  it('then another card in the same session approves the same payment once, with each outcome notified exactly', async () => {
    const s = await openSession();
    await request(gw.app).post(s.pay).type('form').send(cardForm(CARDS.declined));
    const declined = await paymentOf(s.orderNo);
    expect(declined).toMatchObject({ status: '4000', result_code: '3001' });
    const paid = await request(gw.app)
      .post(s.pay)
      .type('form')
      .send(
        cardForm(`${CARDS.approved.slice(0, 4)} ${CARDS.approved.slice(4, 8)} ${CARDS.approved.slice(8, 12)} ${CARDS.approved.slice(12)}`, {
          attempt: '1',
        }),
      );
    expect(paid.status).toBe(303);
    expect(paid.headers.location).toMatch(/\/result$/);
    const approved = await paymentOf(s.orderNo);
    expect(approved).toMatchObject({ transaction_id: declined!.transaction_id, status: '3000', attempt: 2 });
    expect(approved!.card!.last4).toBe(CARDS.approved.slice(-4));
    expect(approved!.history!.map((h) => h.to)).toEqual(['4000', '1000', '3000']);
    const result = await request(gw.app).get(s.result);
    expect(result.text).toContain('Payment successful');
    expect(attributeOf(result.text, 'result', 'data-final')).toBe('true');
    expect(signedResult(result.text)).toMatchObject({ order_status: '1', transaction_id: declined!.transaction_id });
    // one notification per outcome, each telling what happened then: the decline, then the approval
    const sent = (await notices(s.orderNo)).map((n) => [n.fields.order_status, n.fields.payment_status]).sort();
    expect(sent).toEqual([
      ['0', '4000'],
      ['1', '3000'],
    ]);
    // the approved session takes no third card
    const again = await request(gw.app)
      .post(s.pay)
      .type('form')
      .send(cardForm(CARDS.approved, { attempt: '2' }));
    expect(again.headers.location).toMatch(/\/result$/);
    expect((await paymentOf(s.orderNo))!.version).toBe(approved!.version);
  });

  it('then an order that keeps its card (token_flag YES) keeps the card that was approved, not the declined one', async () => {
    const s = await openSession({ token_flag: 'YES' });
    await request(gw.app).post(s.pay).type('form').send(cardForm(CARDS.declined));
    expect((await paymentOf(s.orderNo))!.token_id).toBeUndefined();
    await request(gw.app)
      .post(s.pay)
      .type('form')
      .send(cardForm(CARDS.approvedMastercard, { attempt: '1' }));
    const approved = await paymentOf(s.orderNo);
    expect(approved).toMatchObject({ status: '3000', attempt: 2, vault_created: true });
    expect(approved!.token_id).toBe(approved!.vault_token);
    const kept = await gw.deps.store.getCard(MERCHANT_ID, approved!.token_id!);
    expect(kept!.card.last4).toBe(CARDS.approvedMastercard.slice(-4));
  });

  it('then the shopper may save the second card (with consent), and pay another time with a saved card after a decline', async () => {
    const shopper = { shopper_id: `retry-${s4()}`, shopper_signature: '' };
    shopper.shopper_signature = sign([MERCHANT_ID, ACCOUNT_ID, shopper.shopper_id], SIGN_KEY);
    const first = await openSession(shopper);
    await request(gw.app)
      .post(first.pay)
      .type('form')
      .send(cardForm(CARDS.declined, { save_card: '1' }));
    await request(gw.app)
      .post(first.pay)
      .type('form')
      .send(cardForm(CARDS.approvedMastercard, { attempt: '1', save_card: '1' }));
    expect(await paymentOf(first.orderNo)).toMatchObject({ status: '3000', attempt: 2 });
    const saved = await gw.deps.store.savedCardsOf({ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, shopperId: shopper.shopper_id }, 10);
    expect(saved.map((c) => c.card_last4)).toEqual([CARDS.approvedMastercard.slice(-4)]);

    // a later order: a typed card declined, then the saved card (its security code asked again) approves
    const second = await openSession(shopper);
    await request(gw.app).post(second.pay).type('form').send(cardForm(CARDS.declined));
    const paid = await request(gw.app)
      .post(second.pay)
      .type('form')
      .send({ saved_card: saved[0]!.card_id, saved_security_code: TEST_SECURITY_CODE, attempt: '1' });
    expect(paid.headers.location).toMatch(/\/result$/);
    const p = await paymentOf(second.orderNo);
    expect(p).toMatchObject({ status: '3000', attempt: 2 });
    expect(p!.card!.last4).toBe(CARDS.approvedMastercard.slice(-4));
  });

  it('then a second submit of the declined form (no attempt, or an old one) answers the decline and asks the acquirer nothing', async () => {
    const s = await openSession();
    await request(gw.app).post(s.pay).type('form').send(cardForm(CARDS.declined));
    const declined = await paymentOf(s.orderNo);
    const keys = (await ledgerKeys()).length;
    const double = await request(gw.app).post(s.pay).type('form').send(cardForm(CARDS.approved));
    expect(double.headers.location).toMatch(/\/result$/);
    const stale = await request(gw.app)
      .post(s.pay)
      .type('form')
      .send(cardForm(CARDS.approved, { attempt: '7' }));
    expect(stale.headers.location).toMatch(/\/result$/);
    expect(await paymentOf(s.orderNo)).toEqual(declined);
    expect((await ledgerKeys()).length).toBe(keys);
  });

  it(`then after ${MAX_CHECKOUT_ATTEMPTS} declined cards the session takes no other`, async () => {
    const s = await openSession();
    await request(gw.app).post(s.pay).type('form').send(cardForm(CARDS.declined));
    for (let attempt = 1; attempt < MAX_CHECKOUT_ATTEMPTS; attempt++)
      await request(gw.app)
        .post(s.pay)
        .type('form')
        .send(cardForm(CARDS.declined, { attempt: String(attempt) }));
    expect(await paymentOf(s.orderNo)).toMatchObject({ status: '4000', attempt: MAX_CHECKOUT_ATTEMPTS });
    const result = await request(gw.app).get(s.result);
    expect(result.text).not.toContain('Try another card');
    expect(attributeOf(result.text, 'result', 'data-final')).toBe('true');
    const card = await request(gw.app).get(s.card);
    expect(card.status).toBe(303);
  });

  it('then once the session has expired the decline is final: no other card, the result goes on', async () => {
    const s = await openSession();
    await request(gw.app).post(s.pay).type('form').send(cardForm(CARDS.declined));
    clock.advance(31 * 60_000);
    const result = await request(gw.app).get(s.result);
    expect(result.text).not.toContain('Try another card');
    const late = await request(gw.app)
      .post(s.pay)
      .type('form')
      .send(cardForm(CARDS.approved, { attempt: '1' }));
    expect(late.headers.location).toMatch(/\/result$/);
    expect(await paymentOf(s.orderNo)).toMatchObject({ status: '4000' });
  });
});

describe('when the shopper cancels the 3-D Secure challenge', () => {
  it('then the payment fails (4300) as an abandoned challenge, with its notification, and the result page follows', async () => {
    const s = await openSession();
    const paid = await request(gw.app).post(s.pay).type('form').send(cardForm(CARDS.challenge));
    expect(paid.headers.location).toMatch(/\/v1\/3ds\//);
    const challenge = await request(gw.app).get(path(paid.headers.location));
    // the issuer's page shows the card by its last 4 only
    expect(challenge.text).toContain(CARDS.challenge.slice(-4));
    expect(challenge.text).not.toContain(CARDS.challenge.slice(0, 6));
    const cancelled = await request(gw.app)
      .post(`${path(paid.headers.location)}/cancel`)
      .type('form')
      .send('');
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.location).toMatch(/\/result$/);
    const p = await paymentOf(s.orderNo);
    expect(p).toMatchObject({ status: '4300', result_code: '3004' });
    expect(p!.threeds).toMatchObject({ challenge_pending: false, result: 'authentication not completed (cancelled by the shopper)' });
    expect((await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, s.orderNo, 5)).map((n) => n.fields.payment_status)).toEqual([
      '4300',
    ]);
    const result = await request(gw.app).get(s.result);
    expect(result.text).toContain('3-D Secure authentication failed');
    // the address is spent: a second cancel or a late code changes nothing
    await request(gw.app)
      .post(`${path(paid.headers.location)}/cancel`)
      .type('form')
      .send('');
    expect((await paymentOf(s.orderNo))!.version).toBe(p!.version);
  });
});

describe('when a later attempt names its acquirer references', () => {
  it('then each carries the attempt, and every reference leads back to the one payment', () => {
    expect(acquirerReference.authorise('T1', 1)).toBe('T1');
    expect(acquirerReference.authorise('T1', 2)).toBe('T1-a2');
    expect(acquirerReference.challenge('T1', 3)).toBe('T1-a3-3ds');
    expect(referenceKind('T1-a2')).toEqual({ op: 'authorise', transactionId: 'T1' });
    expect(referenceKind('T1-a3-3ds')).toEqual({ op: 'challenge', transactionId: 'T1' });
    expect(referenceKind('T1-cap')).toEqual({ op: 'capture', transactionId: 'T1' });
  });
});
