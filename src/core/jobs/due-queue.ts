import type { Clock } from '../kernel/clock.js';
import type { MerchantDirectory } from '../merchants/directory.js';
import type { DueQueue, GatewayStore } from '../ports/store.js';

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
}

/** What a due-queue job needs of the core. */
interface DueQueueDeps {
  store: Pick<GatewayStore, 'due'>;
  clock: Clock;
  merchants: Pick<MerchantDirectory, 'merchantIds'>;
}

/**
 * A job over one of the per-merchant due queues: at each run, for every merchant, the members due at the
 * clock's now (at most `batch`, earliest first) are handed to `handle`, which returns true when it acted.
 * `handle` owns the claim (a versioned commit) and the member's removal from the queue.
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
    handle(merchantId: string, member: string): Promise<boolean>;
  },
): BackgroundJob {
  return {
    name: spec.name,
    intervalMs: spec.intervalMs,
    async runOnce(): Promise<number> {
      let handled = 0;
      for (const merchantId of deps.merchants.merchantIds()) {
        const due = await deps.store.due(merchantId, spec.queue, deps.clock.now(), spec.batch);
        if (spec.concurrent) {
          const results = await Promise.all(due.map((d) => spec.handle(merchantId, d.member)));
          handled += results.filter(Boolean).length;
        } else {
          for (const d of due) if (await spec.handle(merchantId, d.member)) handled++;
        }
      }
      return handled;
    },
  };
}
