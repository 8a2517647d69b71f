import type { KvStore } from '../../src/store/kv.js';
import { World, type SimAcquirer } from './world.js';
import { acquirerWebhooks, webhooksOwed } from './webhooks.js';
import { randomFault, randomStep, type Sent, type Trace } from './steps.js';
import { violations } from './invariants.js';
import { MERCHANT_ID } from '../support/gateway.js';
import { startAdvance } from '../../src/core/jobs/advance.js';
import { PaymentStatus as S } from '../../src/core/records/payment.js';
import { CHALLENGE_WINDOW_MS } from '../../src/core/payments/settle.js';
import type { ClockMark } from '../../src/core/records/clock-record.js';

export interface RunResult {
  seed: number;
  violations: string[];
  trace: Trace;
  faults: string[];
}

export interface RunOptions {
  steps: number;
  /** faults a store can only show on Redis (a commit script failing after its first write) */
  badWrites: boolean;
  /** commits lost with their primary before a replica confirmed them (the in-memory store rolled back) */
  lostCommits: boolean;
  /** a real acquirer's stub: the run's accounts go to its connector there (test/support/acquirers) */
  acquirer?: SimAcquirer;
}

/**
 * One seeded run: random steps through the real core with a fault armed before about one step in three,
 * then recovery to quiescence, then the invariants. Everything random comes from the seed.
 */
export async function simulate(seed: number, kv: KvStore, options: RunOptions): Promise<RunResult> {
  const w = new World(seed, kv, options.acquirer);
  const trace: Trace = [];
  const sent: Sent = { commands: [], payouts: [], payments: new Set(), clocks: [], refunds: [] };
  // a late answer: meanwhile the claim goes stale and another process's recovery resolves it
  w.plan.lateHook = async () => {
    w.clock.advance(w.deps.pendingResolveMs + 1_000);
    const other = w.spawn();
    trace.push('  (late answer: another process runs recovery meanwhile)');
    await Promise.race([other.jobs.get('pending-resolve')!.runOnce(), other.proc.died]);
  };
  for (let i = 0; i < options.steps; i++) {
    failover(w, trace);
    // between steps the acquirer does what was due by now (a request that ran on, an intent decided later)
    w.sim?.settle?.();
    const fault = randomFault(w, options);
    w.plan.arm(fault);
    if (fault) trace.push(`fault: ${JSON.stringify(fault)}`);
    await randomStep(w, sent, trace);
    // the notification worker runs beside the merchants' calls (a fault still armed may meet its sends)
    if (w.chance(0.3)) await w.job('notification-delivery');
    // a real acquirer's webhooks arrive beside them too, racing the shopper's return and the merchant's calls
    if (w.sim?.events && w.chance(0.3)) await acquirerWebhooks(w, trace);
    w.plan.arm(undefined);
  }
  failover(w, trace);
  await quiesce(w, trace);
  await deliverAll(w, trace);
  return { seed, violations: await violations(w), trace, faults: w.plan.fired };
}

/** A replica is promoted after the primary died: the store answers again, without what it never confirmed. */
function failover(w: World, trace: Trace): void {
  if (!w.plan.storeDown) return;
  w.plan.failover?.();
  w.plan.failover = undefined;
  w.plan.storeDown = false;
  w.clock.advance(5_000);
  trace.push('failover: a replica is promoted (the unconfirmed commit is gone), 5 s later');
}

/**
 * Time passes and recovery runs, until no payment is claimed and none waits on a challenge (bounded): a
 * challenge no return answered ends at its expiry, with what the acquirer did on its own page meanwhile.
 */
async function quiesce(w: World, trace: Trace): Promise<void> {
  for (let round = 0; round < 30; round++) {
    // what the acquirer owes arrives first, as it would within seconds: an answer given on its own challenge
    // page settles the payment before its expiry would
    await acquirerWebhooks(w, trace);
    const payments = await w.checkStore.getPayments(MERCHANT_ID, [...new Set(w.transactions)]);
    const claimed = payments.some((p) => p?.claim);
    // a test clock's payments wait in its own time (its expiry is one of its steps)
    const waiting = payments.some(
      (p) => p?.status === S.PENDING && p.threeds.challenge_pending && (p as ClockMark).test_clock_id === undefined,
    );
    if (waiting) {
      w.clock.advance(CHALLENGE_WINDOW_MS);
      trace.push(`quiesce: time +${CHALLENGE_WINDOW_MS / 1000}s, challenges expire`);
      await w.job('threeds-challenge-expiry');
    }
    const queued = await w.checkStore.due(MERCHANT_ID, 'pending_resolve', Number.MAX_SAFE_INTEGER, 1);
    const clocks = await w.checkStore.testClocksOf(MERCHANT_ID, 10);
    const onClocks = await Promise.all(
      clocks.map((c) => w.checkStore.due(MERCHANT_ID, 'pending_resolve', Number.MAX_SAFE_INTEGER, 1, c.test_clock_id)),
    );
    const advancing = clocks.some((c) => c.clock_status === 'advancing');
    // the acquirer may still act on its own (a request running on, a decision to come) or owe webhooks, and a
    // dispute's step may be due (its deadline, asking the acquirer again)
    const acquirerBusy = w.sim?.busy?.() === true || webhooksOwed(w);
    const disputeDue = await w.checkStore.due(MERCHANT_ID, 'dispute', Number.MAX_SAFE_INTEGER, 1);
    if (
      !claimed &&
      !waiting &&
      queued.length === 0 &&
      !advancing &&
      !acquirerBusy &&
      disputeDue.length === 0 &&
      onClocks.every((q) => q.length === 0)
    )
      return;
    // a test clock's claims are resolved in its time (recovery is one of its steps): each ready clock moves on too
    for (const c of clocks.filter((x) => x.clock_status === 'ready')) {
      const to = c.frozen_time + Math.max(w.deps.pendingResolveMs, 60_000) + 1_000;
      await w.run((deps) => startAdvance(deps, deps.merchants.find(MERCHANT_ID, c.account_id)!, c.test_clock_id, to));
    }
    // time moves on by a recovery period; after a few rounds, to the next thing to come when that is later: the
    // acquirer's next move of its own (hours away: an offer it closes; days: a dispute it decides), or a
    // dispute's next step (its deadline, the day its decision is read, a reversal)
    const period = Math.max(w.deps.pendingResolveMs, 60_000) + 1_000;
    const ahead = [w.sim?.nextDue?.(), disputeDue[0]?.at].filter((t): t is number => t !== undefined);
    const next = round >= 3 && ahead.length > 0 ? Math.min(...ahead) : undefined;
    const ms = Math.max(period, next === undefined ? 0 : next - w.clock.now());
    w.clock.advance(ms);
    trace.push(`quiesce: time +${ms / 1000}s, recovery`);
    await acquirerWebhooks(w, trace);
    await w.job('pending-resolve');
    await w.job('subscription-charges');
    await w.job('dispute-steps');
    await w.job('test-clocks');
  }
}

/** Notifications go out until none is due (bounded): what is left pending must still be queued. */
async function deliverAll(w: World, trace: Trace): Promise<void> {
  trace.push('deliver: the notification worker runs until nothing is due');
  for (let round = 0; round < 6; round++) {
    w.clock.advance(61_000);
    await w.job('notification-delivery');
  }
}
