import type { PaymentClaim } from '../../../src/core/payments/claim.js';
import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, authoriseBody } from '../../support/gateway.js';
import { signBody } from '../../support/sign.js';
import { batchBody, pay, ref } from '../../support/operations.js';
import { checkoutBody } from '../../support/checkout.js';
import { payoutBody } from '../../support/payout.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

const clock = new ManualClock();

const gw = gatewayOnRedis('idempotency', { clock });

const post = (path: string, body: unknown, key?: string) => {
  // JSON refusals from /v1/authorise too (it answers XML refusals to callers that do not prefer JSON)
  const r = request(gw.app).post(path).set('Content-Type', 'application/x-www-form-urlencoded').set('Accept', 'application/json');
  if (key !== undefined) r.set('Idempotency-Key', key);
  return r.send(typeof body === 'string' ? body : JSON.stringify(body));
};

describe('Idempotency-Key', () => {
  it('when a capture is repeated with the same key and body, then the first answer is replayed byte for byte and the capture happens once', async () => {
    const p = await pay(gw.app, { notify_url: 'https://merchant.example/notify' });
    const body = batchBody('capture', [ref(p)]);
    const first = await post('/v1/capture', body, 'cap-1');
    const again = await post('/v1/capture', body, 'cap-1');
    expect(first.status).toBe(200);
    expect(first.body.capture_orders[0].capture_status).toBe('1');
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const without = await post('/v1/capture', body);
    expect(without.body.capture_orders[0].capture_status).toBe('0');
    const due = await gw.deps.store.due(MERCHANT_ID, 'outbox', Number.MAX_SAFE_INTEGER, 10_000);
    const notes = await Promise.all(due.map((d) => gw.deps.store.getOutbox(MERCHANT_ID, d.member)));
    expect(notes.filter((n) => n?.notify_type === 'capture' && n.fields.transaction_id === p.transaction_id)).toHaveLength(1);
  });

  it('when a direct payment is repeated with the same key, then the same XML answer comes back', async () => {
    const body = authoriseBody();
    const first = await post('/v1/authorise', body, 'pay-1');
    const again = await post('/v1/authorise', body, 'pay-1');
    expect(first.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
  });

  it('when the key is reused with another body, then the call is refused with 409 and nothing is applied', async () => {
    const a = await pay(gw.app);
    const b = await pay(gw.app);
    expect((await post('/v1/cancel', batchBody('cancel', [ref(a)]), 'shared')).status).toBe(200);
    const other = await post('/v1/cancel', batchBody('cancel', [ref(b)]), 'shared');
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', field: 'Idempotency-Key', return_status: '0' });
    expect((await gw.deps.store.getPayment(MERCHANT_ID, b.transaction_id))?.status).toBe('3000');
  });

  it('when the key is reused while the first call still runs, then the repeat is refused with 409', async () => {
    const p = await pay(gw.app);
    const body = batchBody('capture', [ref(p)]);
    // the first call holds the payment: hold it here the way a slow first call would
    const held = await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id);
    await gw.deps.store.commit({
      merchantId: MERCHANT_ID,
      // a claim with no recorded intent (as older versions wrote): when it lapses it is released, not resumed
      payments: [{ next: { ...held!, claim: { id: 'slow', until: clock.now() + 600 } as PaymentClaim }, expected: held!.version }],
    });
    const slow = post('/v1/capture', body, 'slow-1').then((r) => r);
    await new Promise((r) => setTimeout(r, 150));
    const repeat = await post('/v1/capture', body, 'slow-1');
    expect(repeat.status).toBe(409);
    expect(repeat.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    clock.advance(1000); // the holder's claim lapses; the first call goes on
    const first = await slow;
    expect(first.body.capture_orders[0].capture_status).toBe('1');
    expect((await post('/v1/capture', body, 'slow-1')).text).toBe(first.text);
  });

  it('when 24 hours have passed, then the key is free and the call runs again', async () => {
    const p = await pay(gw.app);
    const body = batchBody('capture', [ref(p)]);
    expect((await post('/v1/capture', body, 'day-1')).body.capture_orders[0].capture_status).toBe('1');
    clock.advance(24 * 3_600_000 + 1000);
    const later = await post('/v1/capture', body, 'day-1');
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.capture_orders[0].error_message).toBe('V2001:Transaction has already been captured');
  });

  it('when the key is empty, too long or not printable, then the call is refused with 400 naming Idempotency-Key', async () => {
    const p = await pay(gw.app);
    const body = batchBody('capture', [ref(p)]);
    for (const key of ['', 'k'.repeat(256), 'caf\u00e9']) {
      const res = await post('/v1/capture', body, key);
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('Idempotency-Key');
    }
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))?.status).toBe('3000');
  });

  it('when an unsigned request uses a key, then it is refused and the key stays free for the account', async () => {
    const p = await pay(gw.app);
    const body = batchBody('capture', [ref(p)]);
    const forged = { ...body, encryption_data: 'ab'.repeat(32) };
    expect((await post('/v1/capture', forged, 'k-1')).status).toBe(401);
    const real = await post('/v1/capture', body, 'k-1');
    expect(real.status).toBe(200);
    expect(real.body.capture_orders[0].capture_status).toBe('1');
    expect(real.body.account_id).toBe(ACCOUNT_ID);
  });

  it('when a notification resend is repeated with the same key, then the answer is replayed, and another body under the key is refused with 409', async () => {
    const a = await pay(gw.app, { notify_url: 'https://merchant.example/notify' });
    const b = await pay(gw.app, { notify_url: 'https://merchant.example/notify' });
    const resend = (orderNo: string) =>
      signBody(
        { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, notify_id: '', order_no: orderNo },
        ['merchant_id', 'account_id', 'notify_id', 'order_no'],
        SIGN_KEY,
      );
    const first = await post('/v1/notifications/resend', resend(a.order_no), 'resend-1');
    expect(first.status).toBe(200);
    const again = await post('/v1/notifications/resend', resend(a.order_no), 'resend-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    const other = await post('/v1/notifications/resend', resend(b.order_no), 'resend-1');
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('when a call with an Idempotency-Key carries a 64-character signature that is not hexadecimal, then it is refused with 400, never a 500', async () => {
    const body: Record<string, unknown> = { ...authoriseBody(), encryption_data: '\u00e9'.repeat(64) };
    const res = await post('/v1/authorise', body, 'non-hex-signature');
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('encryption_data');
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, body.order_no as string)).toBeUndefined();
    for (const [path, signed] of [
      ['/v1/checkout', checkoutBody()],
      ['/v1/payout', payoutBody()],
    ] as const) {
      const other = await post(path, { ...signed, encryption_data: '\u0130'.repeat(64) }, `non-hex-${path}`);
      expect(other.status, path).toBe(400);
      expect(other.body.field, path).toBe('encryption_data');
    }
  });
});
