import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import type { GatewayStore } from '../../../src/core/ports/store.js';
import { openStore } from '../../../src/compose.js';
import { outboxRequeueJob } from '../../../src/core/notifications/requeue.js';
import { redisWorld } from '../../support/redis-world.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, type TestGateway } from '../../support/gateway.js';
import { NotificationReceiver } from '../../support/receiver.js';
import { authorise, jobOf } from '../../support/jobs.js';
import { signBody } from '../../support/sign.js';

/**
 * A resent notification is never lost (docs/notifications.md, at least once; issue 37, point 4). The delivery worker drops
 * the queue entry of a notification that is no longer pending; a resend that makes it pending again and
 * queues it between the worker's read and that drop must keep its entry.
 */
const world = redisWorld('notification-resend-race');

async function receiver(answers: number[]): Promise<NotificationReceiver> {
  const r = await new NotificationReceiver(answers).start();
  world.receivers.push(r);
  return r;
}

async function resend(gw: TestGateway, notifyId: string): Promise<void> {
  const body = signBody(
    { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, notify_id: notifyId, order_no: '' },
    ['merchant_id', 'account_id', 'notify_id', 'order_no'],
    SIGN_KEY,
  );
  const res = await request(gw.app).post('/v1/notifications/resend').send(JSON.stringify(body));
  expect(res.status).toBe(200);
  expect(res.body.notifications).toEqual([expect.objectContaining({ notify_id: notifyId, status: 'pending' })]);
}

describe('when a merchant resends a notification while another process drops its spent queue entry', () => {
  it('then the resent notification is still delivered: the merchant receives it twice, the second time after the resend', async () => {
    const clock = new ManualClock();
    const a = world.gateway('resend-race-a', clock);
    const r = await receiver([200]);
    await authorise(a, { notify_url: r.url });

    // process B's store, real Redis, with the two other actors let in at the moments that matter: after B
    // read its queue, process A delivers the notification; after B read the (now delivered) record, the
    // merchant resends it through A. Then B drops what it takes for a spent queue entry.
    let stage: 'start' | 'delivered' | 'resent' = 'start';
    let notifyId = '';
    const real = openStore(world.redis.url);
    const store = new Proxy(real, {
      get(target, prop) {
        if (prop === 'due') {
          return async (...args: Parameters<GatewayStore['due']>) => {
            const hits = await target.due(...args);
            if (stage === 'start' && args[1] === 'outbox' && hits.length === 1) {
              notifyId = hits[0]!.member;
              await jobOf(a, 'notification-delivery').runOnce();
              expect(r.received).toHaveLength(1);
              stage = 'delivered';
            }
            return hits;
          };
        }
        if (prop === 'getOutbox') {
          return async (...args: Parameters<GatewayStore['getOutbox']>) => {
            const rec = await target.getOutbox(...args);
            if (stage === 'delivered' && args[1] === notifyId) {
              expect(rec?.status).toBe('delivered');
              await resend(a, notifyId);
              stage = 'resent';
            }
            return rec;
          };
        }
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const b = world.gateway('resend-race-b', clock, { store });
    await jobOf(b, 'notification-delivery').runOnce();
    expect(stage).toBe('resent');

    // whichever process runs its worker next sends the resent notification
    await jobOf(a, 'notification-delivery').runOnce();
    await jobOf(b, 'notification-delivery').runOnce();
    expect(r.received.map((n) => n.fields.notify_id)).toEqual([notifyId, notifyId]);
    expect(await a.deps.store.getOutbox(MERCHANT_ID, notifyId)).toMatchObject({ status: 'delivered', attempts: 2 });
  });
});

describe('when a pending notification has lost its queue entry (as that race left it before removals were conditional)', () => {
  it('then the re-queue sweep queues it again once it is 5 minutes overdue, and the merchant receives it', async () => {
    const clock = new ManualClock();
    const gw = world.gateway('requeue-sweep', clock);
    const r = await receiver([200]);
    await authorise(gw, { notify_url: r.url });
    const [entry] = await gw.deps.store.due(MERCHANT_ID, 'outbox', clock.now(), 10);
    const notifyId = entry!.member;
    // the entry dropped with no condition on the record, as the worker did
    await gw.deps.store.commit({ merchantId: MERCHANT_ID, due: [{ queue: 'outbox', member: notifyId, at: null }] });
    const delivery = jobOf(gw, 'notification-delivery');
    const sweep = jobOf(gw, 'notification-requeue');
    await delivery.runOnce();
    expect(r.received).toHaveLength(0);
    clock.advance(5 * 60_000 - 1);
    expect(await sweep.runOnce()).toBe(0);
    clock.advance(2);
    expect(await sweep.runOnce()).toBe(1);
    await delivery.runOnce();
    expect(r.received.map((n) => n.fields.notify_id)).toEqual([notifyId]);
    expect(await gw.deps.store.getOutbox(MERCHANT_ID, notifyId)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await sweep.runOnce()).toBe(0);
  });

  it('then a long overdue list is walked over several runs, not only its head', async () => {
    const clock = new ManualClock();
    const gw = world.gateway('requeue-sweep-walk', clock);
    const r = await receiver([200]);
    for (let i = 0; i < 3; i++) {
      await authorise(gw, { notify_url: r.url });
      clock.advance(1);
    }
    const entries = await gw.deps.store.due(MERCHANT_ID, 'outbox', clock.now(), 10);
    expect(entries).toHaveLength(3);
    await gw.deps.store.commit({
      merchantId: MERCHANT_ID,
      due: entries.map((e) => ({ queue: 'outbox' as const, member: e.member, at: null })),
    });
    clock.advance(5 * 60_000 + 1);
    const sweep = outboxRequeueJob(gw.deps, { batch: 2 });
    // each run looks at 2: the first two, then from the second on (the third), then from the start again
    expect(await sweep.runOnce()).toBe(2);
    expect(await gw.deps.store.due(MERCHANT_ID, 'outbox', clock.now(), 10)).toHaveLength(2);
    expect(await sweep.runOnce()).toBe(2);
    expect(await gw.deps.store.due(MERCHANT_ID, 'outbox', clock.now(), 10)).toHaveLength(3);
    await jobOf(gw, 'notification-delivery').runOnce();
    expect(new Set(r.received.map((n) => n.fields.notify_id))).toEqual(new Set(entries.map((e) => e.member)));
  });
});
