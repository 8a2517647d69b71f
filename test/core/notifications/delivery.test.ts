import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { verifyNotificationFields, verifyXSignature } from '../../../packages/sdk/src/index.js';
import { redisWorld } from '../../support/redis-world.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY } from '../../support/gateway.js';
import { NotificationReceiver } from '../../support/receiver.js';
import { authorise, jobOf } from '../../support/jobs.js';
import { FIELDS, sign, signBody } from '../../support/sign.js';

const world = redisWorld('notification-delivery');
const gateway = world.gateway;

async function receiver(answers: number[], headers: Record<string, string> = {}, delayMs = 0): Promise<NotificationReceiver> {
  const r = await new NotificationReceiver(answers, headers, delayMs).start();
  world.receivers.push(r);
  return r;
}

describe('when the receiver fails twice and then answers 200', () => {
  it('then it gets the same signed notification three times, 1 s and then 2 s apart (with at most 20 % jitter)', async () => {
    const clock = new ManualClock();
    const gw = gateway('delivery-retries', clock);
    const r = await receiver([500, 503, 200]);
    const delivery = jobOf(gw, 'notification-delivery');
    const answer = await authorise(gw, { notify_url: r.url });

    await delivery.runOnce();
    expect(r.received).toHaveLength(1);
    clock.advance(999);
    await delivery.runOnce();
    expect(r.received).toHaveLength(1);
    clock.advance(201); // 1.2 s after the first try
    await delivery.runOnce();
    expect(r.received).toHaveLength(2);
    clock.advance(1_999);
    await delivery.runOnce();
    expect(r.received).toHaveLength(2);
    clock.advance(401); // 2.4 s after the second try
    await delivery.runOnce();
    expect(r.received).toHaveLength(3);
    const ids = new Set(r.received.map((n) => n.fields.notify_id));
    expect(ids.size).toBe(1);
    const last = r.received[2]!;
    expect(last.fields).toMatchObject({
      notify_type: 'payment',
      merchant_id: MERCHANT_ID,
      account_id: ACCOUNT_ID,
      order_no: answer.order_no,
      transaction_id: answer.transaction_id,
      amount: '10.00',
      currency: 'USD',
      order_status: '1',
      payment_status: '3000',
      result_info: '0000:Success',
    });
    expect(last.rawBody).not.toContain('4242424242424242');
    // no card field at all, not even the masked number
    for (const field of ['card', 'expiration_month', 'expiration_year', 'security_code']) expect(last.fields).not.toHaveProperty(field);
    expect(last.fields.encryption_data).toBe(
      sign(
        FIELDS.notification.map((f) => last.fields[f]),
        SIGN_KEY,
      ),
    );
    for (const n of r.received) {
      expect(n.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(verifyNotificationFields(n.fields, SIGN_KEY).ok).toBe(true);
      expect(verifyXSignature(n.headers['x-signature'], n.rawBody, SIGN_KEY, 300, Math.floor(clock.now() / 1000)).ok).toBe(true);
    }
    const t = r.received.map((n) => Number(/t=(\d+)/.exec(String(n.headers['x-signature']))![1]));
    expect(t[0]).toBe(Math.floor(Date.UTC(2026, 10, 21, 10, 0, 0) / 1000));
    const stored = await gw.deps.store.getOutbox(MERCHANT_ID, last.fields.notify_id!);
    expect(stored).toMatchObject({ status: 'delivered', attempts: 3 });
    clock.advance(3_600_000);
    await delivery.runOnce();
    expect(r.received).toHaveLength(3);
  });
});

describe('when a notification is tampered with or replayed late', () => {
  it('then the shipped helper refuses it', async () => {
    const clock = new ManualClock();
    const gw = gateway('delivery-tamper', clock);
    const r = await receiver([200]);
    await authorise(gw, { notify_url: r.url });
    await jobOf(gw, 'notification-delivery').runOnce();
    const n = r.received[0]!;
    const now = Math.floor(clock.now() / 1000);
    expect(verifyXSignature(n.headers['x-signature'], n.rawBody.replace('10.00', '1000.00'), SIGN_KEY, 300, now).ok).toBe(false);
    expect(verifyXSignature(n.headers['x-signature'], n.rawBody, SIGN_KEY, 300, now + 301).ok).toBe(false);
    expect(verifyXSignature(n.headers['x-signature'], n.rawBody, 'another-key', 300, now).ok).toBe(false);
    expect(verifyNotificationFields({ ...n.fields, order_no: 'other' }, SIGN_KEY).ok).toBe(false);
  });
});

describe('when the receiver is down while the gateway restarts', () => {
  it('then a new gateway process on the same Redis delivers the notification once the receiver is up', async () => {
    const clock = new ManualClock();
    const first = gateway('delivery-restart-a', clock);
    const r = await receiver([200]);
    const port = r.port;
    await r.stop();
    await authorise(first, { notify_url: `http://127.0.0.1:${port}/notify` });
    await jobOf(first, 'notification-delivery').runOnce();
    expect(r.received).toHaveLength(0);
    await first.close();

    await r.start(port);
    const second = gateway('delivery-restart-b', clock);
    clock.advance(1_200);
    await jobOf(second, 'notification-delivery').runOnce();
    expect(r.received).toHaveLength(1);
    const stored = await second.deps.store.getOutbox(MERCHANT_ID, r.received[0]!.fields.notify_id!);
    expect(stored).toMatchObject({ status: 'delivered', attempts: 2 });
  });
});

describe('when two gateway processes run the delivery worker at the same moment', () => {
  it('then the notification is sent once', async () => {
    const clock = new ManualClock();
    const a = gateway('delivery-two-a', clock);
    const b = gateway('delivery-two-b', clock);
    const r = await receiver([200], {}, 100);
    await authorise(a, { notify_url: r.url });
    await Promise.all([
      jobOf(a, 'notification-delivery').runOnce(),
      jobOf(b, 'notification-delivery').runOnce(),
      jobOf(b, 'notification-delivery').runOnce(),
    ]);
    expect(r.received).toHaveLength(1);
  });
});

describe('when the receiver answers with a redirect', () => {
  it('then the redirect is not followed and the attempt counts as failed', async () => {
    const clock = new ManualClock();
    const gw = gateway('delivery-redirect', clock);
    const target = await receiver([200]);
    const r = await receiver([302], { Location: target.url });
    await authorise(gw, { notify_url: r.url });
    await jobOf(gw, 'notification-delivery').runOnce();
    expect(r.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    const stored = await gw.deps.store.getOutbox(MERCHANT_ID, r.received[0]!.fields.notify_id!);
    expect(stored).toMatchObject({ status: 'pending', attempts: 1, last_error: 'redirect 302 not followed' });
  });
});

describe('when the receiver never answers 2xx', () => {
  it('then the gaps double up to 12 h and the notification is marked failed within 36 h', async () => {
    const clock = new ManualClock();
    const start = clock.now();
    const gw = gateway('delivery-gives-up', clock);
    const r = await receiver([500]);
    await authorise(gw, { notify_url: r.url });
    const delivery = jobOf(gw, 'notification-delivery');
    await delivery.runOnce();
    const notifyId = r.received[0]!.fields.notify_id!;
    const times = [clock.now()];
    for (let i = 0; i < 100; i++) {
      const rec = (await gw.deps.store.getOutbox(MERCHANT_ID, notifyId))!;
      if (rec.status !== 'pending') break;
      clock.set(rec.next_attempt_at);
      await delivery.runOnce();
      times.push(clock.now());
    }
    const rec = (await gw.deps.store.getOutbox(MERCHANT_ID, notifyId))!;
    expect(rec.status).toBe('failed');
    expect(r.received).toHaveLength(rec.attempts);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    gaps.forEach((gap, i) => {
      const base = Math.min(1000 * 2 ** i, 12 * 3_600_000);
      expect(gap).toBeGreaterThanOrEqual(base);
      expect(gap).toBeLessThanOrEqual(Math.min(base * 1.2, 12 * 3_600_000));
    });
    expect(times.at(-1)! - start).toBeLessThanOrEqual(36 * 3_600_000);
    expect(times.at(-1)! - start).toBeGreaterThan(24 * 3_600_000);
  });
});

describe('when a merchant asks for a notification again (POST /v1/notifications/resend)', () => {
  it('then the same notify_id is sent again, found by notify_id or by order_no', async () => {
    const clock = new ManualClock();
    const gw = gateway('delivery-resend', clock);
    const r = await receiver([200]);
    const answer = await authorise(gw, { notify_url: r.url });
    const delivery = jobOf(gw, 'notification-delivery');
    await delivery.runOnce();
    const notifyId = r.received[0]!.fields.notify_id!;

    const byId = signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, notify_id: notifyId, order_no: '' },
      ['merchant_id', 'account_id', 'notify_id', 'order_no'],
      SIGN_KEY,
    );
    const res = await request(gw.app).post('/v1/notifications/resend').set('Content-Type', 'application/json').send(JSON.stringify(byId));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      return_status: '1',
      notifications: [{ notify_id: notifyId, notify_type: 'payment', order_no: answer.order_no, status: 'pending' }],
    });
    expect(res.body.encryption_data).toBe(sign([MERCHANT_ID, ACCOUNT_ID, '1'], SIGN_KEY));
    await delivery.runOnce();
    expect(r.received.map((n) => n.fields.notify_id)).toEqual([notifyId, notifyId]);

    const byOrder = signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, notify_id: '', order_no: answer.order_no },
      ['merchant_id', 'account_id', 'notify_id', 'order_no'],
      SIGN_KEY,
    );
    expect((await request(gw.app).post('/v1/notifications/resend').send(JSON.stringify(byOrder))).status).toBe(200);
    await delivery.runOnce();
    expect(r.received.map((n) => n.fields.notify_id)).toEqual([notifyId, notifyId, notifyId]);
  });

  it('then an unknown notify_id is a 404 and a wrong signature a 401', async () => {
    const gw = gateway('delivery-resend-errors', new ManualClock());
    const unknown = signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, notify_id: 'ntf_nope', order_no: '' },
      ['merchant_id', 'account_id', 'notify_id', 'order_no'],
      SIGN_KEY,
    );
    const res = await request(gw.app).post('/v1/notifications/resend').send(JSON.stringify(unknown));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOTIFICATION_NOT_FOUND', field: 'notify_id' });
    const forged = { ...unknown, encryption_data: sign([MERCHANT_ID, ACCOUNT_ID, 'ntf_nope', ''], 'wrong-key') };
    expect((await request(gw.app).post('/v1/notifications/resend').send(JSON.stringify(forged))).status).toBe(401);
  });
});
