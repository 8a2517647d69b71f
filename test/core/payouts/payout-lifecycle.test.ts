import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startRedis, type RedisServer } from '../../support/redis.js';
import { ACCOUNT_ID, makeGateway, MERCHANT_ID, SIGN_KEY, type TestGateway } from '../../support/gateway.js';
import { payoutBody, payoutMerchants, payoutQueryBody } from '../../support/payout.js';
import { sign } from '../../support/sign.js';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { backgroundJobs } from '../../../src/compose.js';
import type { BackgroundJob } from '../../../src/core/schedule/due-queue.js';
import type { OutboxRecord } from '../../../src/core/notifications/outbox.js';

let redis: RedisServer;
let gw: TestGateway;
let other: TestGateway;
let job: BackgroundJob;
let otherJob: BackgroundJob;
const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));
const MINUTE = 60_000;

beforeAll(async () => {
  redis = await startRedis('payout-lifecycle');
  gw = makeGateway({ name: 'payout-lifecycle', redisUrl: redis.url, clock, merchants: payoutMerchants() });
  // a second gateway process on the same Redis, to show that a step is taken once
  other = makeGateway({ name: 'payout-lifecycle-2', redisUrl: redis.url, clock, merchants: payoutMerchants() });
  job = backgroundJobs(gw.deps, gw.config).find((j) => j.name === 'payout-lifecycle')!;
  otherJob = backgroundJobs(other.deps, other.config).find((j) => j.name === 'payout-lifecycle')!;
});
afterAll(async () => {
  await gw?.close();
  await other?.close();
  await redis?.stop();
});

const post = (body: unknown, path = '/v1/payout') => request(gw.app).post(path).send(JSON.stringify(body));
const status = async (requestId: string) => (await post(payoutQueryBody({ request_id: requestId }), '/v1/payout/query')).body;
const usd = async () => (await gw.deps.store.getBalance(MERCHANT_ID, ACCOUNT_ID, 'USD'))?.available ?? 10_000_000;

/** The payout notifications waiting in the outbox for one request_id, oldest first. */
async function notifications(requestId: string): Promise<OutboxRecord[]> {
  const due = await gw.deps.store.due(MERCHANT_ID, 'outbox', Number.MAX_SAFE_INTEGER, 10_000);
  const records = await Promise.all(due.map((d) => gw.deps.store.getOutbox(MERCHANT_ID, d.member)));
  return records
    .filter((r): r is OutboxRecord => r?.notify_type === 'payout' && r.fields.request_id === requestId)
    .sort((a, b) => a.created_at - b.created_at);
}

describe('when the clock moves past each step of a payout', () => {
  it('then it goes PENDING, PROCESSING, COMPLETED, with a signed notification for each status', async () => {
    const body = payoutBody();
    const id = String(body.request_id);
    const created = (await post(body)).body;
    expect(created.status).toBe('PENDING');

    expect(await job.runOnce()).toBe(0);
    expect((await status(id)).status).toBe('PENDING');

    clock.advance(MINUTE);
    expect(await job.runOnce()).toBe(1);
    const processing = await status(id);
    expect(processing.status).toBe('PROCESSING');
    expect(processing.last_updated_at).toBe('2026-11-21T10:01:00+0000');
    expect(processing.created_at).toBe('2026-11-21T10:00:00+0000');
    expect(processing.encryption_data).toBe(sign([MERCHANT_ID, ACCOUNT_ID, id, 'PROCESSING'], SIGN_KEY));

    clock.advance(4 * MINUTE);
    expect(await job.runOnce()).toBe(0);
    clock.advance(MINUTE);
    expect(await job.runOnce()).toBe(1);
    const done = await status(id);
    expect(done).toMatchObject({ status: 'COMPLETED', failure_reason: '', failure_type: '', last_updated_at: '2026-11-21T10:06:00+0000' });

    clock.advance(60 * MINUTE);
    expect(await job.runOnce()).toBe(0);

    const sent = await notifications(id);
    expect(sent.map((n) => n.fields.status)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
    for (const n of sent) {
      expect(n.notify_url).toBe('https://merchant.example/payout-notify');
      expect(n.fields).toMatchObject({
        notify_type: 'payout',
        transaction_id: created.transaction_id,
        amount_payer_pays: '1020.00',
        fee_amount: '30.00',
      });
      expect(n.fields.encryption_data).toBe(sign([MERCHANT_ID, ACCOUNT_ID, 'payout', n.notify_id, id], SIGN_KEY));
    }
  });
});

describe('when a sandbox trigger account fails the transfer', () => {
  it.each([
    ['4000000001', 'INVALID_BENEFICIARY_ACCOUNT', 2, ['PENDING', 'PROCESSING', 'FAILED']],
    ['4000000002', 'BENEFICIARY_BANK_REJECTED', 2, ['PENDING', 'PROCESSING', 'FAILED']],
    ['4000000003', 'COMPLIANCE_REJECTED', 1, ['PENDING', 'FAILED']],
    ['4000000004', 'UNKNOWN', 2, ['PENDING', 'PROCESSING', 'FAILED']],
  ])('when the account number is %s, then it ends FAILED with %s and the deposit is credited back', async (account, type, steps, seen) => {
    const before = await usd();
    const body = payoutBody({ 'beneficiary.bank_details.account_number': account });
    const id = String(body.request_id);
    expect((await post(body)).status).toBe(200);
    expect(await usd()).toBe(before - 102_000);
    for (let i = 0; i < steps; i++) {
      clock.advance(5 * MINUTE);
      expect(await job.runOnce()).toBe(1);
    }
    const failed = await status(id);
    expect(failed.status).toBe('FAILED');
    expect(failed.failure_type).toBe(type);
    expect(failed.failure_reason).not.toBe('');
    expect(await usd()).toBe(before);
    expect((await notifications(id)).map((n) => n.fields.status)).toEqual(seen);
  });
});

describe('when payment_date is a later day', () => {
  it('then the payout waits in PENDING until that day starts', async () => {
    const body = payoutBody({ payment_date: '2026-11-23' });
    const id = String(body.request_id);
    const start = clock.now();
    expect((await post(body)).status).toBe(200);
    clock.advance(10 * MINUTE);
    await job.runOnce();
    expect((await status(id)).status).toBe('PENDING');
    const dayStarts = Date.UTC(2026, 10, 23);
    clock.set(Math.max(dayStarts, start));
    await job.runOnce();
    expect((await status(id)).status).toBe('PROCESSING');
  });
});

describe('when two gateway processes run the payout job at the same moment', () => {
  it('then each step is taken once and notified once', async () => {
    // settle every earlier payout first, so the counts below are this payout's alone
    clock.advance(60 * MINUTE);
    while ((await job.runOnce()) > 0) clock.advance(5 * MINUTE);
    const body = payoutBody({ payment_date: new Date(clock.now()).toISOString().slice(0, 10) });
    const id = String(body.request_id);
    expect((await post(body)).status).toBe(200);
    clock.advance(MINUTE);
    const [a, b] = await Promise.all([job.runOnce(), otherJob.runOnce()]);
    expect(a + b).toBe(1);
    clock.advance(5 * MINUTE);
    const [c, d] = await Promise.all([job.runOnce(), otherJob.runOnce()]);
    expect(c + d).toBe(1);
    expect((await status(id)).status).toBe('COMPLETED');
    expect((await notifications(id)).map((n) => n.fields.status)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
  });
});
