import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { redisWorld } from '../../support/redis-world.js';
import {
  ACCOUNT_ID,
  AUTO_ACCOUNT_ID,
  AUTO_SIGN_KEY,
  MERCHANT_ID,
  SIGN_KEY,
  testMerchants,
  type TestGateway,
} from '../../support/gateway.js';
import { checkoutBody } from '../../support/checkout.js';
import { CARDS, TEST_SECURITY_CODE } from '../../support/cards.js';
import { sign } from '../../support/sign.js';
import { dailyPlan, jobOf } from '../../support/jobs.js';

/** docs/checkout.md#saved-cards-for-returning-shoppers: saved cards on the hosted card page, and the merchant's /v1/retrievalCards and /v1/deleteCard. */
const world = redisWorld('saved-cards');
const SHOPPER = 'shopper-42';

/** shopper_signature: SHA-256 of merchant_id + account_id + shopper_id + sign_key (the test's own rule). */
const shopperSignature = (shopper: string, account = ACCOUNT_ID, key = SIGN_KEY) => sign([MERCHANT_ID, account, shopper], key);

function gateway(name: string): { gw: TestGateway; clock: ManualClock } {
  const clock = new ManualClock(Date.UTC(2026, 10, 26, 12, 0, 0));
  return { gw: world.gateway(name, clock), clock };
}

const path = (url: string): string => new URL(url).pathname;

/** A checkout session for a shopper (proven unless told otherwise); its card page and pay addresses. */
async function openSession(gw: TestGateway, shopper?: { id: string; signature?: string; account?: string; key?: string }) {
  const account = shopper?.account ?? ACCOUNT_ID;
  const key = shopper?.key ?? SIGN_KEY;
  const extra = shopper
    ? { shopper_id: shopper.id, shopper_signature: shopper.signature ?? shopperSignature(shopper.id, account, key), account_id: account }
    : {};
  // the other account's own origin for the shopper's way back
  const back = account === AUTO_ACCOUNT_ID ? { return_url: 'https://auto.example/return', cancel_url: 'https://auto.example/cancel' } : {};
  const res = await request(gw.app)
    .post('/v1/checkout')
    .set('Accept', 'application/json')
    .send(JSON.stringify(checkoutBody({ open3d: 'no3DS', ...extra, ...back }, key)));
  expect(res.status, res.text).toBe(200);
  const card = path(res.body.checkout_url as string);
  return { card, pay: `${card}/pay`, remove: `${card}/saved-cards/remove`, result: `${card}/result` };
}

const newCard = (extra: Record<string, string> = {}) => ({
  cardholder: 'Ada Lovelace',
  card: CARDS.approved,
  expiration_month: '12',
  expiration_year: '2034',
  security_code: TEST_SECURITY_CODE,
  ...extra,
});

/** The saved cards a card page offers (its radio inputs' values). */
async function offered(gw: TestGateway, card: string): Promise<string[]> {
  const page = await request(gw.app).get(card);
  expect(page.status).toBe(200);
  return [...page.text.matchAll(/name="saved_card" id="saved-(card_[^"]+)"/g)].map((m) => m[1]!);
}

async function retrievalCards(gw: TestGateway, shopperId: string, account = ACCOUNT_ID, key = SIGN_KEY) {
  const body = { merchant_id: MERCHANT_ID, account_id: account, shopper_id: shopperId };
  return request(gw.app)
    .post('/v1/retrievalCards')
    .send(JSON.stringify({ ...body, encryption_data: sign([MERCHANT_ID, account, shopperId], key) }));
}

async function deleteCard(gw: TestGateway, shopperId: string, cardId: string) {
  const body = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, shopper_id: shopperId, card_id: cardId };
  return request(gw.app)
    .post('/v1/deleteCard')
    .send(JSON.stringify({ ...body, encryption_data: sign([MERCHANT_ID, ACCOUNT_ID, shopperId, cardId], SIGN_KEY) }));
}

/** A checkout session of the proven shopper with more order fields (a subscription); its card page and pay addresses. */
async function openSessionWith(gw: TestGateway, order: Record<string, unknown>) {
  const res = await request(gw.app)
    .post('/v1/checkout')
    .set('Accept', 'application/json')
    .send(JSON.stringify(checkoutBody({ open3d: 'no3DS', shopper_id: SHOPPER, shopper_signature: shopperSignature(SHOPPER), ...order })));
  expect(res.status, res.text).toBe(200);
  const card = path(res.body.checkout_url as string);
  return { card, pay: `${card}/pay` };
}

/** Pays a new session of the shopper with a new card, saving it; the card_id saved. */
async function saveCard(gw: TestGateway, shopper = SHOPPER, card: string = CARDS.approved): Promise<string> {
  const s = await openSession(gw, { id: shopper });
  const paid = await request(gw.app)
    .post(s.pay)
    .type('form')
    .send(newCard({ card, save_card: '1' }));
  expect(paid.status).toBe(303);
  const list = await retrievalCards(gw, shopper);
  return (list.body.cards as { card_id: string }[])[0]!.card_id;
}

describe('a shopper_id that holds a card number', () => {
  // two loyalty numbers that pass the Luhn check in a card range, with the same first 6 and last 4 digits
  const FIRST = '4111111111111111';
  const SECOND = '4111110000091111';

  it('when two such shoppers share first 6 and last 4 digits, then no card is saved under either and neither sees the other’s', async () => {
    const { gw } = gateway('card-shaped-shopper');
    const a = await openSession(gw, { id: FIRST });
    // nothing is offered to save: the id would be kept masked, the same as the second shopper's
    const page = await request(gw.app).get(a.card);
    expect(page.text).not.toContain('name="save_card"');
    const paid = await request(gw.app)
      .post(a.pay)
      .type('form')
      .send(newCard({ card: CARDS.approvedMastercard, save_card: '1' }));
    expect(paid.status).toBe(303);
    const b = await openSession(gw, { id: SECOND });
    expect(await offered(gw, b.card)).toEqual([]);
    // the merchant's calls name the field: no cards are kept under such an id
    for (const shopper of [FIRST, SECOND]) {
      const listed = await retrievalCards(gw, shopper);
      expect(listed.status).toBe(400);
      expect(listed.body.message).toMatch(/^shopper_id: holds a card number/);
      expect(listed.text).not.toContain('4444');
      const removed = await deleteCard(gw, shopper, 'card_0123456789abcdef');
      expect(removed.status).toBe(400);
      expect(removed.body.message).toMatch(/^shopper_id: /);
    }
    // an ordinary shopper_id still saves
    expect(await saveCard(gw, 'loyalty-4111')).toMatch(/^card_/);
  });
});

describe('saved cards on the hosted card page', () => {
  it('when a proven shopper pays with the consent box ticked, then the card is saved and listed with brand, last 4 and expiry', async () => {
    const { gw } = gateway('save');
    const s = await openSession(gw, { id: SHOPPER });
    const page = await request(gw.app).get(s.card);
    // the consent box is there, unchecked, and nothing is offered yet
    // (inside the card form, after the card's fields)
    expect(page.text).toMatch(
      /<form id="card-form"[^]*id="security_code"[^]*<input type="checkbox" name="save_card" id="save_card" value="1">[^]*<\/form>/,
    );
    expect(await offered(gw, s.card)).toEqual([]);
    const paid = await request(gw.app)
      .post(s.pay)
      .type('form')
      .send(newCard({ save_card: '1' }));
    expect(paid.status).toBe(303);
    expect(path(String(paid.headers.location))).toBe(s.result);
    const list = await retrievalCards(gw, SHOPPER);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, shopper_id: SHOPPER, return_status: '1' });
    expect(list.body.encryption_data).toBe(sign([MERCHANT_ID, ACCOUNT_ID, '1'], SIGN_KEY));
    expect(list.body.cards).toEqual([
      { card_id: expect.stringMatching(/^card_/), brand: 'VISA', card_last4: '4242', expiry: '12/2034', created_date: '20261126120000' },
    ]);
    // neither the number nor the security code is in the answer
    expect(list.text).not.toContain(CARDS.approved);
    // the next checkout of the same shopper offers it
    const next = await openSession(gw, { id: SHOPPER });
    expect(await offered(gw, next.card)).toEqual([list.body.cards[0].card_id]);
  });

  it('when the shopper saves the same card again, then it stays one saved card (no second token), while another card, or the same number with a new expiry, is saved beside it', async () => {
    const { gw } = gateway('save-twice');
    const first = await saveCard(gw);
    const tokens = async () => (await world.redis.client().keys(`gw:{${MERCHANT_ID}}:card:*`)).length;
    const before = await tokens();
    // the same number and expiry typed again, the consent box ticked again: paid, nothing more saved
    const again = await openSession(gw, { id: SHOPPER });
    expect(
      (
        await request(gw.app)
          .post(again.pay)
          .type('form')
          .send(newCard({ save_card: '1' }))
      ).status,
    ).toBe(303);
    expect((await retrievalCards(gw, SHOPPER)).body.cards.map((c: { card_id: string }) => c.card_id)).toEqual([first]);
    expect(await tokens()).toBe(before);
    // a reissued card (same number, new expiry) and another card are new cards
    const reissued = await openSession(gw, { id: SHOPPER });
    const paid = await request(gw.app)
      .post(reissued.pay)
      .type('form')
      .send(newCard({ save_card: '1', expiration_year: '2035' }));
    expect(paid.status).toBe(303);
    await saveCard(gw, SHOPPER, CARDS.approvedMastercard);
    const expiries = ((await retrievalCards(gw, SHOPPER)).body.cards as { card_last4: string; expiry: string }[]).map(
      (c) => `${c.card_last4} ${c.expiry}`,
    );
    expect(expiries.sort()).toEqual(['4242 12/2034', '4242 12/2035', `${CARDS.approvedMastercard.slice(-4)} 12/2034`].sort());
  });

  it('when the consent box is not ticked, or the payment is declined, then nothing is saved and no card is left in the vault', async () => {
    const { gw } = gateway('no-consent');
    const plain = await openSession(gw, { id: SHOPPER });
    expect((await request(gw.app).post(plain.pay).type('form').send(newCard())).status).toBe(303);
    const declined = await openSession(gw, { id: SHOPPER });
    expect(
      (
        await request(gw.app)
          .post(declined.pay)
          .type('form')
          .send(newCard({ card: CARDS.declined, save_card: '1' }))
      ).status,
    ).toBe(303);
    expect((await retrievalCards(gw, SHOPPER)).body.cards).toEqual([]);
    expect(await world.redis.client().keys(`gw:{${MERCHANT_ID}}:card:*`)).toEqual([]);
  });

  it('when the shopper pays with a saved card, then its security code is asked again and the vault token is charged as a token payment', async () => {
    const { gw } = gateway('pay-saved');
    const cardId = await saveCard(gw);
    const s = await openSession(gw, { id: SHOPPER });
    expect(await offered(gw, s.card)).toEqual([cardId]);
    const page = await request(gw.app).get(s.card);
    expect(page.text).toMatch(
      /<input id="saved_security_code" name="saved_security_code" form="card-form" type="password" autocomplete="cc-csc"/,
    );
    // without its security code: the page again, the code asked, nothing charged
    const missing = await request(gw.app).post(s.pay).type('form').send({ saved_card: cardId });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('Enter the 3-digit security code');
    expect(missing.text).toMatch(/<li><a href="#saved_security_code">/);
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, await orderOf(gw, s.card))).toBeUndefined();
    const paid = await request(gw.app).post(s.pay).type('form').send({ saved_card: cardId, saved_security_code: TEST_SECURITY_CODE });
    expect(paid.status).toBe(303);
    const payment = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, await orderOf(gw, s.card));
    const saved = await gw.deps.store.getSavedCard({ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, shopperId: SHOPPER }, cardId);
    expect(payment).toMatchObject({ status: '3000', vault_token: saved!.token, card: { last4: '4242', brand: 'VISA' } });
    // the saved card's token is not handed to the merchant as the payment's token_id
    expect(payment!.token_id).toBeUndefined();
    // the security code is kept nowhere
    const stored = await world.redis.client().keys('*');
    const client = world.redis.client();
    const text = async (k: string): Promise<string> => {
      const type = await client.type(k);
      if (type === 'string') return (await client.get(k)) ?? '';
      if (type === 'hash') return Object.values(await client.hgetall(k)).join('\n');
      return '';
    };
    const values = await Promise.all(stored.map(text));
    expect(values.join('\n')).toContain('"card_last4":"4242"');
    expect(values.join('\n')).not.toContain(`"${TEST_SECURITY_CODE}"`);
  });

  it('when a subscription is paid with a saved card and the shopper then removes the card, then the subscription is charged on (its card is its own)', async () => {
    const { gw, clock } = gateway('subscription-saved');
    const cardId = await saveCard(gw);
    const s = await openSessionWith(gw, { subscription: dailyPlan({ billing_cycle: 3, contract_start: '' }) });
    const paid = await request(gw.app).post(s.pay).type('form').send({ saved_card: cardId, saved_security_code: TEST_SECURITY_CODE });
    expect(paid.status).toBe(303);
    const payment = (await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, await orderOf(gw, s.card)))!;
    expect(payment.status).toBe('3000');
    const saved = await gw.deps.store.getSavedCard({ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, shopperId: SHOPPER }, cardId);
    const contract = (await gw.deps.store.getContract(MERCHANT_ID, payment.recurring_id!))!;
    expect(contract.vault_token).not.toBe(saved!.token);

    expect((await deleteCard(gw, SHOPPER, cardId)).status).toBe(200);
    expect(await gw.deps.store.getCard(MERCHANT_ID, saved!.token)).toBeUndefined();
    const scheduler = jobOf(gw, 'subscription-charges');
    for (let t = 0; t < 3 * 86_400_000; t += 3_600_000) {
      clock.advance(3_600_000);
      await scheduler.runOnce();
    }
    const charges = await Promise.all(
      [2, 3].map((n) => gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${payment.recurring_id}-${n}`)),
    );
    expect(charges.map((p) => p?.status)).toEqual(['3000', '3000']);
  });

  it('when another shopper, another account or an unproven shopper_id opens a checkout, then no saved card is offered, and a forged card_id charges nothing', async () => {
    const { gw } = gateway('isolation');
    const cardId = await saveCard(gw);
    const other = await openSession(gw, { id: 'shopper-43' });
    expect(await offered(gw, other.card)).toEqual([]);
    const forged = await request(gw.app).post(other.pay).type('form').send({ saved_card: cardId, saved_security_code: TEST_SECURITY_CODE });
    expect(forged.status).toBe(422);
    expect(forged.text).toContain('This saved card can no longer be used');
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, await orderOf(gw, other.card))).toBeUndefined();
    // the same shopper_id with a wrong signature, or with none: ignored, not refused; nothing offered or saved
    for (const signature of ['0'.repeat(64), '']) {
      const unproven = await openSession(gw, { id: SHOPPER, signature });
      const page = await request(gw.app).get(unproven.card);
      expect(page.text).not.toContain('name="save_card"');
      expect(await offered(gw, unproven.card)).toEqual([]);
      const tried = await request(gw.app)
        .post(unproven.pay)
        .type('form')
        .send({ saved_card: cardId, saved_security_code: TEST_SECURITY_CODE });
      expect(tried.status).toBe(422);
      expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, await orderOf(gw, unproven.card))).toBeUndefined();
    }
    // another account of the merchant (not saving cards) offers nothing for the same shopper_id
    const auto = await openSession(gw, { id: SHOPPER, account: AUTO_ACCOUNT_ID, key: AUTO_SIGN_KEY });
    expect(await offered(gw, auto.card)).toEqual([]);
    // the merchant's API lists it only to the shopper it belongs to
    expect((await retrievalCards(gw, 'shopper-43')).body.cards).toEqual([]);
    expect((await retrievalCards(gw, SHOPPER)).body.cards).toHaveLength(1);
  });

  it('when another merchant names the same shopper_id and card_id, then it sees and removes nothing', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 26, 12, 0, 0));
    const file = testMerchants();
    const other = JSON.parse(JSON.stringify(file.merchants[0])) as (typeof file.merchants)[number];
    Object.assign(other, { merchant_id: '2000002', name: 'Other Shop' });
    Object.assign(other.accounts[0]!, { account_id: ACCOUNT_ID, sign_key: 'other-sign-key-0001' });
    other.accounts.splice(1);
    file.merchants.push(other);
    const gw = world.gateway('other-merchant', clock, { merchants: file });
    const cardId = await saveCard(gw);
    const body = { merchant_id: '2000002', account_id: ACCOUNT_ID, shopper_id: SHOPPER };
    const listed = await request(gw.app)
      .post('/v1/retrievalCards')
      .send(JSON.stringify({ ...body, encryption_data: sign(['2000002', ACCOUNT_ID, SHOPPER], 'other-sign-key-0001') }));
    expect(listed.status).toBe(200);
    expect(listed.body.cards).toEqual([]);
    const removed = await request(gw.app)
      .post('/v1/deleteCard')
      .send(
        JSON.stringify({
          ...body,
          card_id: cardId,
          encryption_data: sign(['2000002', ACCOUNT_ID, SHOPPER, cardId], 'other-sign-key-0001'),
        }),
      );
    expect(removed.status).toBe(404);
    expect((await retrievalCards(gw, SHOPPER)).body.cards).toHaveLength(1);
  });

  it('when the shopper removes a saved card on the page, then it is no longer offered and its vault token is gone', async () => {
    const { gw } = gateway('remove-page');
    const cardId = await saveCard(gw);
    const saved = await gw.deps.store.getSavedCard({ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, shopperId: SHOPPER }, cardId);
    const s = await openSession(gw, { id: SHOPPER });
    const page = await request(gw.app).get(s.card);
    expect(page.text).toContain(`<form id="remove-${cardId}" class="remove-form" method="post" action="http://gateway.test${s.remove}">`);
    // another session's shopper cannot remove it through its own page
    const other = await openSession(gw, { id: 'shopper-43' });
    expect((await request(gw.app).post(other.remove).type('form').send({ card_id: cardId })).status).toBe(303);
    expect(await offered(gw, s.card)).toEqual([cardId]);
    const removed = await request(gw.app).post(s.remove).type('form').send({ card_id: cardId });
    expect(removed.status).toBe(303);
    expect(String(removed.headers.location)).toBe(`http://gateway.test${s.card}`);
    expect(await offered(gw, s.card)).toEqual([]);
    expect(await gw.deps.store.getCard(MERCHANT_ID, saved!.token)).toBeUndefined();
  });

  it('when a saved card has expired, then the page no longer offers it, while the merchant still lists it', async () => {
    const { gw, clock } = gateway('expired');
    const s = await openSession(gw, { id: SHOPPER });
    await request(gw.app)
      .post(s.pay)
      .type('form')
      .send(newCard({ expiration_month: '01', expiration_year: '2027', save_card: '1' }));
    const cardId = ((await retrievalCards(gw, SHOPPER)).body.cards as { card_id: string }[])[0]!.card_id;
    expect(await offered(gw, (await openSession(gw, { id: SHOPPER })).card)).toEqual([cardId]);
    clock.set(Date.UTC(2027, 1, 1, 0, 0, 0));
    const later = await openSession(gw, { id: SHOPPER });
    expect(await offered(gw, later.card)).toEqual([]);
    expect((await retrievalCards(gw, SHOPPER)).body.cards).toMatchObject([{ card_id: cardId, expiry: '01/2027' }]);
    const tried = await request(gw.app).post(later.pay).type('form').send({ saved_card: cardId, saved_security_code: TEST_SECURITY_CODE });
    expect(tried.status).toBe(422);
  });
});

describe('a shopper proven by strict signing', () => {
  it('when a strict account names a shopper_id, then the X-Signature over the whole body proves it without shopper_signature', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 26, 12, 0, 0));
    const file = testMerchants();
    (file.merchants[0]!.accounts[0]! as unknown as Record<string, unknown>).signature_mode = 'strict';
    const gw = world.gateway('strict', clock, { merchants: file });
    const text = JSON.stringify(checkoutBody({ open3d: 'no3DS', shopper_id: SHOPPER }));
    const t = Math.floor(clock.now() / 1000);
    const mac = createHmac('sha256', SIGN_KEY).update(`${t}.POST./v1/checkout.${text}`).digest('hex');
    const res = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .set('X-Signature', `t=${t},v1=${mac}`)
      .type('form')
      .send(text);
    expect(res.status, res.text).toBe(200);
    const page = await request(gw.app).get(path(res.body.checkout_url as string));
    expect(page.text).toContain('name="save_card"');
  });
});

describe('the merchant lists and removes saved cards', () => {
  it('when /v1/deleteCard removes a card, then it is gone from the list and the page, and a second removal answers 404 naming card_id', async () => {
    const { gw } = gateway('delete-api');
    const cardId = await saveCard(gw);
    const removed = await deleteCard(gw, SHOPPER, cardId);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ shopper_id: SHOPPER, card_id: cardId, return_status: '1' });
    expect(removed.body.encryption_data).toBe(sign([MERCHANT_ID, ACCOUNT_ID, '1'], SIGN_KEY));
    expect((await retrievalCards(gw, SHOPPER)).body.cards).toEqual([]);
    expect(await offered(gw, (await openSession(gw, { id: SHOPPER })).card)).toEqual([]);
    const again = await deleteCard(gw, SHOPPER, cardId);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 'NOT_FOUND', field: 'card_id', return_status: '0' });
    // another shopper cannot remove a card that is not its own
    const kept = await saveCard(gw);
    expect((await deleteCard(gw, 'shopper-43', kept)).status).toBe(404);
    expect((await retrievalCards(gw, SHOPPER)).body.cards).toHaveLength(1);
  });

  it('when a saved-card call is malformed, then it is refused with 400 naming the field', async () => {
    const { gw } = gateway('refusals');
    const missing = await request(gw.app)
      .post('/v1/retrievalCards')
      .send(
        JSON.stringify({
          merchant_id: MERCHANT_ID,
          account_id: ACCOUNT_ID,
          encryption_data: sign([MERCHANT_ID, ACCOUNT_ID, ''], SIGN_KEY),
        }),
      );
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'MISSING_FIELD', field: 'shopper_id', return_status: '0' });
    const long = 'x'.repeat(65);
    expect((await retrievalCards(gw, long)).body).toMatchObject({ field: 'shopper_id' });
    expect((await retrievalCards(gw, 'tab\there')).body).toMatchObject({ field: 'shopper_id' });
    expect((await deleteCard(gw, SHOPPER, 'not-a-card')).body).toMatchObject({ code: 'INVALID_FIELD', field: 'card_id' });
    // an account that does not save cards
    const off = await retrievalCards(gw, SHOPPER, AUTO_ACCOUNT_ID, AUTO_SIGN_KEY);
    expect(off.status).toBe(400);
    expect(off.body).toMatchObject({ field: 'shopper_id' });
    // a wrong signature
    const forged = await request(gw.app)
      .post('/v1/retrievalCards')
      .send(JSON.stringify({ merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, shopper_id: SHOPPER, encryption_data: '0'.repeat(64) }));
    expect(forged.status).toBe(401);
  });
});

/** The order_no of a session (read from its stored record). */
async function orderOf(gw: TestGateway, card: string): Promise<string> {
  const [, , , merchantId, sessionId] = card.split('/');
  return (await gw.deps.store.getCheckoutSession(merchantId!, sessionId!))!.order_no;
}
