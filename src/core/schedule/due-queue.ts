import type { Clock } from '../kernel/clock.js';
import type { MerchantDirectory } from '../records/directory.js';
import type { Logger } from '../ports/deps.js';
import type { DueQueue, GatewayStore } from '../ports/store.js';
import { nextTurn } from '../kernel/turns.js';

/**
 * Work the gateway does on its own (expiry sweep, notification delivery, subscription charges, payout
 * progress). Each job's `runOnce` does whatever is due at the injected clock's now and returns how many
 * items it handled, so tests call it directly instead of sleeping. Several processes may run the same job
 * at once: every item is claimed with a versioned (compare-and-set) write, so only one process acts on it.
 */
export interface BackgroundJob {
  readonly name: string;
  /** pause between runs, real time */
  readonly intervalMs: number;
  runOnce(): Promise<number>;
  /** items that threw since the job was made; each was logged and put back in its queue for a later run */
  readonly failedItems?: number;
  /** resolves once work that outlived its run (a notification send still out) has ended */
  idle?(): Promise<void>;
}

/** A failing item is due again this long after it failed: late enough not to spin, soon enough to recover. */
export const ITEM_RETRY_MS = 60_000;

/** What a due-queue job needs of the core. */
interface DueQueueDeps {
  store: Pick<GatewayStore, 'due' | 'commit'>;
  clock: Clock;
  merchants: Pick<MerchantDirectory, 'merchantIds'>;
  log: Logger;
}

const reason = (err: unknown) => ({ message: err instanceof Error ? err.message : String(err) });

/**
 * A job over one of the per-merchant due queues: at each run, for every merchant, the members due at the
 * clock's now (at most `batch`, earliest first) are handed to `handle`, which returns true when it acted.
 * `handle` owns the claim (a versioned commit) and the member's removal from the queue.
 *
 * Items are isolated from each other: one that throws (a store failure, an account whose connector is
 * gone) is logged, counted and put back in its queue `retryMs` later, so it neither stops the run for the
 * items and merchants after it nor, staying at the head of the queue, starves them on later runs.
 */
export function dueQueueJob(
  deps: DueQueueDeps,
  spec: {
    name: string;
    intervalMs: number;
    queue: DueQueue;
    batch: number;
    /** handle a merchant's due members at once instead of one after another */
    concurrent?: boolean;
    /** how long a failing item waits before it is tried again (default ITEM_RETRY_MS) */
    retryMs?: number;
    handle(merchantId: string, member: string): Promise<boolean>;
  },
): BackgroundJob {
  let failedItems = 0;
  const retryMs = spec.retryMs ?? ITEM_RETRY_MS;

  const putBack = async (merchantId: string, member: string): Promise<void> => {
    const at = deps.clock.now() + retryMs;
    try {
      await deps.store.commit({ merchantId, due: [{ queue: spec.queue, member, at }] });
    } catch (err) {
      // still in the queue at its old time: the next run tries it again
      deps.log.warn({ job: spec.name, merchant_id: merchantId, member, err: reason(err) }, 'job item could not be put back');
    }
  };

  const handleOne = async (merchantId: string, member: string): Promise<boolean> => {
    try {
      return await spec.handle(merchantId, member);
    } catch (err) {
      failedItems++;
      deps.log.error(
        { job: spec.name, queue: spec.queue, merchant_id: merchantId, member, retry_in_ms: retryMs, err: reason(err) },
        'job item failed; put back for a later run',
      );
      await putBack(merchantId, member);
      return false;
    }
  };

  return {
    name: spec.name,
    intervalMs: spec.intervalMs,
    get failedItems() {
      return failedItems;
    },
    async runOnce(): Promise<number> {
      let handled = 0;
      let unread = 0;
      let lastError: unknown;
      for (const merchantId of deps.merchants.merchantIds()) {
        let due: { member: string }[];
        try {
          due = await deps.store.due(merchantId, spec.queue, deps.clock.now(), spec.batch);
        } catch (err) {
          // this merchant's queue is read again next run; the other merchants go on
          deps.log.error({ job: spec.name, queue: spec.queue, merchant_id: merchantId, err: reason(err) }, 'job could not read its queue');
          unread++;
          lastError = err;
          continue;
        }
        // one item a turn of the event loop: a batch never holds up other merchants' requests (kernel/turns.ts);
        // concurrent items are started one a turn and then run side by side
        if (spec.concurrent) {
          const running: Promise<boolean>[] = [];
          for (const d of due) {
            await nextTurn();
            running.push(handleOne(merchantId, d.member));
          }
          handled += (await Promise.all(running)).filter(Boolean).length;
        } else {
          for (const d of due) {
            await nextTurn();
            if (await handleOne(merchantId, d.member)) handled++;
          }
        }
      }
      // a run that could not read a queue did not do its work: it fails (gateway_job_runs_total counts an
      // error), after the merchants it could read were served
      if (unread > 0) throw lastError instanceof Error ? lastError : new Error(`${unread} queues could not be read`);
      return handled;
    },
  };
}
