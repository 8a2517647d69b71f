import type { CoreDeps } from '../ports/deps.js';
import type { BackgroundJob } from '../schedule/due-queue.js';

/**
 * A pending notification this long past its due time (the end of its lease, or its next attempt) is queued
 * again. Longer than a lease (30 s) and than a failing item's wait (60 s), so a notification a worker is
 * still on its way to is left alone.
 */
export const OVERDUE_MS = 5 * 60_000;
/** overdue notifications looked at per merchant per run */
const BATCH = 100;

type Deps = Pick<CoreDeps, 'store' | 'clock' | 'merchants' | 'log'>;

const reason = (err: unknown) => ({ message: err instanceof Error ? err.message : String(err) });

/**
 * The safety net under the outbox queue (docs/notifications.md, delivery at least once): a pending notification without a
 * queue entry would never be sent. Every queue removal is conditional on the record's version now, but an
 * entry lost earlier (an unconditional removal that raced a resend) or deleted by hand is found here.
 *
 * It is found cheaply: the store keeps an index of pending notifications by due time that only the records'
 * own versioned commits write (no job clean-up touches it), so it is exact. A run reads, per merchant, the
 * index members due more than OVERDUE_MS ago: while the worker keeps up that is one empty range read. Each
 * one found is queued again at its due time, in a commit conditional on the version read (a notification
 * that moved since is left to whoever moved it); one that was still queued, its worker merely behind, gets
 * the same entry again. A cursor walks a long overdue list over several runs, not only its head.
 */
export function outboxRequeueJob(deps: Deps, options: { intervalMs?: number; batch?: number } = {}): BackgroundJob {
  const batch = options.batch ?? BATCH;
  /** per merchant, the due time the next run starts from (inclusive) */
  const cursor = new Map<string, number>();
  let failedItems = 0;
  return {
    name: 'notification-requeue',
    intervalMs: options.intervalMs ?? 60_000,
    get failedItems() {
      return failedItems;
    },
    async runOnce(): Promise<number> {
      let requeued = 0;
      const now = deps.clock.now();
      for (const merchantId of deps.merchants.merchantIds()) {
        const from = cursor.get(merchantId) ?? -Infinity;
        try {
          const overdue = await deps.store.overdueOutbox(merchantId, from, now - OVERDUE_MS, batch);
          const last = overdue.at(-1)?.at;
          if (overdue.length < batch || last === undefined) cursor.delete(merchantId);
          // a page of one due time moves past it, else the next run starts at the page's last due time
          else cursor.set(merchantId, last > from ? last : last + 1);
          for (const { notifyId } of overdue) if (await requeue(deps, merchantId, notifyId, now)) requeued++;
        } catch (err) {
          failedItems++;
          deps.log.error({ job: 'notification-requeue', merchant_id: merchantId, err: reason(err) }, 'overdue notifications not checked');
        }
      }
      return requeued;
    },
  };
}

/** Queues one overdue notification again, at its due time, if it is still pending as read. */
async function requeue(deps: Deps, merchantId: string, notifyId: string, now: number): Promise<boolean> {
  const rec = await deps.store.getOutbox(merchantId, notifyId);
  if (!rec || rec.status !== 'pending') return false;
  const at = rec.lease_until ?? rec.next_attempt_at;
  if (at > now - OVERDUE_MS) return false;
  const queued = await deps.store.commit({
    merchantId,
    outboxUnchanged: [{ notifyId, version: rec.version }],
    due: [{ queue: 'outbox', member: notifyId, at }],
  });
  if (queued) deps.log.warn({ merchant_id: merchantId, notify_id: notifyId, due_at: at }, 'overdue notification queued again');
  return queued;
}
