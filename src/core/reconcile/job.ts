import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { CardConnector } from '../ports/card-connector.js';
import { dueQueueJob, type BackgroundJob } from '../schedule/due-queue.js';
import { reconcilePayment } from './reconcile-payment.js';
import { comparedHere, entriesAfter, nextPhase } from './walk.js';
import type { ReconcilePass } from '../records/reconcile-records.js';

/** RECONCILE_DAYS' default: a week of payments with activity at the acquirer. */
export const DEFAULT_RECONCILE_WINDOW_MS = 7 * 86_400_000;
/** Payments whose books one step reads: a step's work is bounded, and the acquirer is asked little at a time. */
export const STEP_PAYMENTS = 10;
/** Index entries one step looks at (one already compared this pass is skipped without asking the acquirer). */
const STEP_ENTRIES = 100;
/** A new pass of an account starts this long after the last one began, at the soonest. */
export const PASS_EVERY_MS = 3_600_000;
/** A process running a step holds the pass this long; after it, another process takes it over. */
const LEASE_MS = 60_000;
/** Lets what waits in the event loop (other merchants' requests) run between two payments of a step. */
const yieldToOthers = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** How often a process looks for accounts that have no pass yet (added while the gateway runs). */
const SEED_EVERY_MS = 300_000;

/**
 * The reconciliation job: every account whose connector has books (CardConnector.books) has a pass record
 * and a member in the `reconcile` due queue. A run takes each due account's pass (a versioned write: one
 * process at a time), compares at most STEP_PAYMENTS payments of it with their books from where the pass
 * stands, records where it got to and puts the account back in the queue (due at once while the pass runs,
 * else when the next pass is due). Other merchants' calls never wait on it: a step's work is bounded, and the
 * job's interval separates steps.
 */
export function reconcileJob(deps: CoreDeps): BackgroundJob {
  const windowMs = deps.reconcileWindowMs ?? DEFAULT_RECONCILE_WINDOW_MS;
  const steps = dueQueueJob(deps, {
    name: 'reconciliation',
    intervalMs: 2_000,
    queue: 'reconcile',
    batch: 20,
    handle: (m, accountId) => reconcileStep(deps, m, accountId, windowMs),
  });
  let seededAt = -Infinity;
  let failedSeeds = 0;
  return {
    name: steps.name,
    intervalMs: steps.intervalMs,
    get failedItems() {
      return (steps.failedItems ?? 0) + failedSeeds;
    },
    async runOnce(): Promise<number> {
      if (windowMs <= 0) return 0;
      const now = deps.clock.now();
      if (now - seededAt >= SEED_EVERY_MS) {
        seededAt = now;
        failedSeeds += await seedPasses(deps, windowMs);
      }
      return steps.runOnce();
    },
  };
}

/** The connector of an account, where its payments can be reconciled (it has books). */
function booksOf(deps: CoreDeps, account: Account): CardConnector | undefined {
  const connector = deps.connectors.get(account.routing.connector_code, account);
  return connector?.books ? connector : undefined;
}

const newPass = (account: Account, now: number, windowMs: number, version = 0): ReconcilePass => ({
  version,
  merchant_id: account.merchant_id,
  account_id: account.account_id,
  started_at: now,
  window_from: now - windowMs,
  phase: 'payments',
  compared: 0,
  caught_up: 0,
  discrepancies: 0,
});

/** Gives each account with books and no pass yet its first pass, due now. Answers how many merchants failed. */
async function seedPasses(deps: CoreDeps, windowMs: number): Promise<number> {
  let failed = 0;
  for (const m of deps.merchants.merchantIds()) {
    try {
      const accounts = deps.merchants.accountsOf(m).filter((a) => booksOf(deps, a));
      const passes = await deps.store.getReconcilePasses(
        m,
        accounts.map((a) => a.account_id),
      );
      const now = deps.clock.now();
      for (const [i, account] of accounts.entries()) {
        if (passes[i]) continue;
        // another process may seed it at the same moment: the versioned create lets one through
        await deps.store.commit({
          merchantId: m,
          reconcilePasses: [{ next: newPass(account, now, windowMs), expected: 0 }],
          due: [{ queue: 'reconcile', member: account.account_id, at: now }],
        });
      }
    } catch (err) {
      failed++;
      deps.log.error(
        { job: 'reconciliation', merchant_id: m, err: { message: (err as Error).message } },
        'reconciliation passes not seeded',
      );
    }
  }
  return failed;
}

/** One step of an account's pass; true when it compared a payment. */
async function reconcileStep(deps: CoreDeps, m: string, accountId: string, windowMs: number): Promise<boolean> {
  const account = deps.merchants.find(m, accountId);
  const connector = account && booksOf(deps, account);
  const requeue = (at: number | null) => deps.store.commit({ merchantId: m, due: [{ queue: 'reconcile', member: accountId, at }] });
  const now = deps.clock.now();
  if (!account || !connector) {
    // gone: its member goes; routed to a connector without books: looked at again later (it may be routed back)
    await requeue(account ? now + PASS_EVERY_MS : null);
    return false;
  }
  const [pass] = await deps.store.getReconcilePasses(m, [accountId]);
  if (!pass) {
    await deps.store.commit({ merchantId: m, reconcilePasses: [{ next: newPass(account, now, windowMs), expected: 0 }] });
    return false;
  }
  if ((pass.lease_until ?? 0) > now) {
    // another process runs a step: looked at again when its lease ends
    await requeue(pass.lease_until!);
    return false;
  }
  if (pass.phase === 'done' && now < pass.started_at + PASS_EVERY_MS) {
    await requeue(pass.started_at + PASS_EVERY_MS);
    return false;
  }
  const start = pass.phase === 'done' ? newPass(account, now, windowMs, pass.version) : pass;
  const held: ReconcilePass = { ...start, lease_until: now + LEASE_MS };
  const taken = await deps.store.commit({
    merchantId: m,
    reconcilePasses: [{ next: held, expected: pass.version }],
    due: [{ queue: 'reconcile', member: accountId, at: now + LEASE_MS }],
  });
  if (!taken) return false;
  const walked = await walkStep(deps, account, connector, { ...held, version: pass.version + 1 });
  const end = deps.clock.now();
  const finished = walked.pass.phase === 'done';
  const released: ReconcilePass = { ...walked.pass, lease_until: undefined, ...(finished ? { finished_at: end } : {}) };
  await deps.store.commit({
    merchantId: m,
    reconcilePasses: [{ next: released, expected: held.version + 1 }],
    due: [{ queue: 'reconcile', member: accountId, at: finished ? released.started_at + PASS_EVERY_MS : end }],
  });
  if (finished)
    deps.log.info(
      {
        merchant_id: m,
        account_id: accountId,
        connector: connector.code,
        compared: released.compared,
        caught_up: released.caught_up,
        discrepancies: released.discrepancies,
      },
      'reconciliation pass finished',
    );
  return walked.compared > 0;
}

/** Walks the pass from its cursor until STEP_PAYMENTS payments are compared, STEP_ENTRIES looked at, or it ends. */
async function walkStep(
  deps: CoreDeps,
  account: Account,
  connector: CardConnector,
  start: ReconcilePass,
): Promise<{ pass: ReconcilePass; compared: number }> {
  let pass = start;
  let asked = 0;
  let looked = 0;
  while (pass.phase !== 'done' && asked < STEP_PAYMENTS && looked < STEP_ENTRIES) {
    // a page about twice what a step compares: a payment read is not wasted on a step that ends before it
    const entries = await entriesAfter(deps, pass, Math.min(2 * STEP_PAYMENTS, STEP_ENTRIES - looked));
    if (entries.length === 0) {
      pass = { ...pass, phase: nextPhase(pass.phase), cursor: undefined };
      continue;
    }
    const payments = await deps.store.getPayments(
      account.merchant_id,
      entries.map((e) => e.transactionId),
    );
    const seen = new Set<string>();
    for (const [i, e] of entries.entries()) {
      looked++;
      pass = { ...pass, cursor: { at: e.at, member: e.member } };
      const p = payments[i];
      if (!p || seen.has(p.transaction_id) || !comparedHere(pass, e, p)) continue;
      seen.add(p.transaction_id);
      const result = await reconcilePayment(deps, account, connector, p.transaction_id);
      await yieldToOthers();
      if (result.kind === 'skipped') continue;
      asked++;
      if (result.kind === 'compared')
        pass = {
          ...pass,
          compared: pass.compared + 1,
          caught_up: pass.caught_up + result.caughtUp,
          discrepancies: pass.discrepancies + result.discrepancies,
        };
      if (asked >= STEP_PAYMENTS) break;
    }
  }
  return { pass, compared: asked };
}
