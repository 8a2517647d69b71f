import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { BackgroundJob } from '../schedule/due-queue.js';
import { ITEM_RETRY_MS } from '../schedule/due-queue.js';
import { GatewayError, invalidField } from '../kernel/errors.js';
import { compactDate } from '../kernel/dates.js';
import { nextTurn } from '../kernel/turns.js';
import { authExpiryJob } from './auth-expiry.js';
import { recoveryJob } from './recovery.js';
import { deliveryJob } from '../notifications/delivery.js';
import { outboxRecord } from '../notifications/outbox.js';
import { subscriptionChargeJob } from '../subscriptions/charges.js';
import { chargeQueueAt, dueAt } from '../records/contract.js';
import { challengeExpiryJob } from '../authorisation/challenge-expiry.js';
import { disputeStepsJob } from '../disputes/steps.js';
import { payoutLifecycleJob } from '../payouts/lifecycle.js';
import { CLOCK_QUEUES, type ClockQueue, type TestClock } from '../records/clock-record.js';
import { clockDeps, type ClockDeps } from '../clocks/clock-deps.js';
import { assertSandbox, findClock } from '../clocks/clocks.js';
import { reconcileClockPayments } from '../reconcile/clock.js';

/** An advance may cross at most this many due steps of one object (docs/test-clocks.md); more is refused before anything moves. */
export const MAX_STEPS_PER_OBJECT = 1_000;
/** A process running an advance holds it this long (real time) and renews it as it goes; after, another resumes it. */
export const ADVANCE_LEASE_MS = 30_000;
/** the same step found due again this many times without moving: it is put back ITEM_RETRY_MS later in the clock's time */
const STUCK_AFTER = 3;

/**
 * The jobs that run a clock's due steps: the very jobs the live process runs, on the clock's core (its time,
 * its queues), one per queue.
 */
export function clockJobs(cdeps: ClockDeps): Record<ClockQueue, BackgroundJob> {
  return {
    contract_charge: subscriptionChargeJob(cdeps),
    auth_expiry: authExpiryJob(cdeps),
    threeds_challenge: challengeExpiryJob(cdeps),
    pending_resolve: recoveryJob(cdeps),
    outbox: deliveryJob(cdeps),
    dispute: disputeStepsJob(cdeps),
    payout: payoutLifecycleJob(cdeps),
  };
}

/**
 * Due steps of one contract up to `to`, counted up to the limit plus one: each period is two (its charge made as a
 * pending payment CHARGE_LEAD_MS ahead, then charged at its time).
 */
function contractStepsUpTo(c: Parameters<typeof dueAt>[0] & { charges_made: number; next_charge_at: number | null }, to: number): number {
  if (c.next_charge_at === null) return 0;
  let steps = 0;
  for (let n = c.charges_made + 1; steps <= MAX_STEPS_PER_OBJECT; n++) {
    const at = dueAt(c, n);
    if (at === null || chargeQueueAt(at) > to) break;
    steps += at <= to ? 2 : 1;
  }
  return steps;
}

/** Refuses an advance that would cross more than MAX_STEPS_PER_OBJECT steps of one object (a subscription's periods). */
async function assertStepLimit(deps: CoreDeps, clock: TestClock, to: number): Promise<void> {
  const m = clock.merchant_id;
  const members = await deps.store.due(m, 'contract_charge', Infinity, 100_000, clock.test_clock_id);
  for (const { member } of members) {
    const c = await deps.store.getContract(m, member);
    if (c && c.status === 'Active' && contractStepsUpTo(c, to) > MAX_STEPS_PER_OBJECT) {
      throw invalidField(
        'frozen_time',
        `would cross more than ${MAX_STEPS_PER_OBJECT} due steps of subscription ${c.recurring_id}; advance in shorter moves`,
      );
    }
  }
}

/**
 * Starts an advance: refused before anything moves when the time is not later than the clock's or crosses too
 * many steps; else the clock is claimed as `advancing` (a versioned write: of two calls at once one claims it,
 * the other finds it advancing) and entered in the live `test_clock` queue, due now, where the clocks' job of
 * any process picks it up and runs it (clock-job.ts). An advance already under way to the same time is answered
 * as it stands.
 */
export async function startAdvance(deps: CoreDeps, account: Account, id: string, to: number): Promise<TestClock> {
  assertSandbox(account);
  for (let attempt = 0; attempt < 5; attempt++) {
    const clock = await findClock(deps, account, id);
    if (clock.clock_status === 'advancing') {
      if (clock.advance_to === to) return clock;
      throw invalidField('test_clock_id', 'is advancing; advance it again once its clock_status is ready');
    }
    if (to <= clock.frozen_time) {
      throw invalidField('frozen_time', `must be later than the clock's time (${compactDate(clock.frozen_time, deps.timezone)})`);
    }
    await assertStepLimit(deps, clock, to);
    const now = deps.clock.now();
    const next: TestClock = { ...clock, clock_status: 'advancing', advance_to: to, lease_until: now };
    const claimed = await deps.store.commit({
      merchantId: account.merchant_id,
      testClocks: [{ next, expected: clock.version }],
      due: [{ queue: 'test_clock', member: id, at: now }],
    });
    if (claimed) return { ...next, version: clock.version + 1 };
  }
  throw new GatewayError('STORE_UNAVAILABLE', 'the test clock kept moving; try again');
}

/** The earliest due step of the clock up to `to`, over all its queues. */
async function nextStep(
  deps: CoreDeps,
  clock: TestClock,
  to: number,
): Promise<{ queue: ClockQueue; member: string; at: number } | undefined> {
  const heads = await Promise.all(
    CLOCK_QUEUES.map(async (queue) => {
      const [head] = await deps.store.due(clock.merchant_id, queue, to, 1, clock.test_clock_id);
      return head && { queue, ...head };
    }),
  );
  let first: { queue: ClockQueue; member: string; at: number } | undefined;
  for (const h of heads) if (h && (!first || h.at < first.at)) first = h;
  return first;
}

/**
 * Takes the clock's lease (a versioned write) when its advance is free to run: answers the clock as held, or
 * undefined when it is not advancing or another process holds it.
 */
export async function takeAdvance(deps: CoreDeps, merchantId: string, id: string): Promise<TestClock | undefined> {
  const clock = await deps.store.getTestClock(merchantId, id);
  const now = deps.clock.now();
  if (!clock || clock.clock_status !== 'advancing' || (clock.lease_until ?? 0) > now) return undefined;
  return renewLease(deps, clock, clock.frozen_time);
}

/** Records the clock's progress to `at` with a fresh lease; undefined when the clock moved (another process, a delete). */
async function renewLease(deps: CoreDeps, clock: TestClock, at: number): Promise<TestClock | undefined> {
  const lease = deps.clock.now() + ADVANCE_LEASE_MS;
  const next: TestClock = { ...clock, frozen_time: at, lease_until: lease };
  const ok = await deps.store.commit({
    merchantId: clock.merchant_id,
    testClocks: [{ next, expected: clock.version }],
    due: [{ queue: 'test_clock', member: clock.test_clock_id, at: lease }],
  });
  return ok ? { ...next, version: clock.version + 1 } : undefined;
}

/**
 * Runs a held advance to its end: the earliest due step of any of the clock's queues, at its time (never before
 * the clock's), by the job of that queue (every item due by then, each claimed as the live job claims it, so a
 * step is made once whoever runs it); then the clock's time is recorded there with the lease renewed. What is
 * recorded is done: a process that dies leaves the rest to whoever takes the lease after it runs out. Once no
 * step is due, the clock's payments are reconciled with the sandbox's books at the advance's time (what the live
 * reconciliation job does: reconcile/clock.ts), and the steps that queued are made. At the end the clock is
 * `ready` at the advance's time, with its `test_clock` notification in the same write.
 */
export async function runAdvance(deps: CoreDeps, held: TestClock): Promise<boolean> {
  let clock = held;
  const to = clock.advance_to!;
  const cdeps = clockDeps(deps, clock);
  const jobs = clockJobs(cdeps);
  const seen = new Map<string, number>();
  let reconciled = false;
  for (;;) {
    // one step a turn of the event loop: an advance of months never holds up other merchants (kernel/turns.ts)
    await nextTurn();
    const step = await nextStep(deps, clock, to);
    if (!step && reconciled) break;
    if (!step) {
      // every step due is made: the clock's payments are reconciled at its new time, then what that queued runs
      reconciled = true;
      cdeps.clock.set(Math.max(clock.frozen_time, to));
      await reconcileClockPayments(cdeps);
      continue;
    }
    const at = Math.max(clock.frozen_time, step.at);
    cdeps.clock.set(at);
    const job = jobs[step.queue];
    await job.runOnce();
    await job.idle?.();
    const key = `${step.queue}\u0000${step.member}\u0000${step.at}`;
    const times = (seen.get(key) ?? 0) + 1;
    seen.set(key, times);
    if (times >= STUCK_AFTER) {
      // a step its job leaves where it is (an account gone, a claim it waits for): later in the clock's time
      deps.log.warn({ test_clock_id: clock.test_clock_id, queue: step.queue, member: step.member }, 'test clock step put back');
      await cdeps.store.commit({
        merchantId: clock.merchant_id,
        due: [{ queue: step.queue, member: step.member, at: at + ITEM_RETRY_MS }],
      });
    }
    if (at > clock.frozen_time || (clock.lease_until ?? 0) - deps.clock.now() < ADVANCE_LEASE_MS / 2) {
      const renewed = await renewLease(deps, clock, at);
      if (!renewed) return false;
      clock = renewed;
    }
  }
  return finishAdvance(deps, clock, to);
}

async function finishAdvance(deps: CoreDeps, clock: TestClock, to: number): Promise<boolean> {
  const account = deps.merchants.find(clock.merchant_id, clock.account_id);
  const ready: TestClock = { ...clock, frozen_time: to, clock_status: 'ready', advance_to: undefined, lease_until: undefined };
  const notice =
    account && clock.notify_url
      ? outboxRecord(deps, account, 'test_clock', clock.notify_url, {
          test_clock_id: clock.test_clock_id,
          name: clock.name,
          frozen_time: compactDate(to, deps.timezone),
          clock_status: 'ready',
        })
      : undefined;
  return deps.store.commit({
    merchantId: clock.merchant_id,
    testClocks: [{ next: ready, expected: clock.version }],
    due: [{ queue: 'test_clock', member: clock.test_clock_id, at: null }],
    ...(notice ? { outbox: [{ next: notice, expected: 0 }] } : {}),
  });
}
