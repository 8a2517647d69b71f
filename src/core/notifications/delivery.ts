import type { CoreDeps } from '../ports/deps.js';
import { dueQueueJob, type BackgroundJob } from '../schedule/due-queue.js';
import type { OutboxRecord } from './outbox.js';
import { notificationHeader } from '../kernel/signing.js';
import { checkNotifyTarget } from './target.js';
import { HostLanes, hostOf } from './host-lanes.js';

import type { PostResult } from '../ports/transport.js';

export type { NotificationPost, NotificationTransport, PostResult } from '../ports/transport.js';

export const DELIVERY_TIMEOUT_MS = 10_000;
/** delivery attempts kept on the record for the portal (the count in `attempts` is complete) */
const MAX_TRIES_KEPT = 20;
/** a claimed notification is left alone by other processes this long (more than one attempt can take) */
export const DELIVERY_LEASE_MS = 30_000;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_GAP_MS = 12 * 3_600_000;
/** retries stop this long after the notification was written (or resent) */
export const RETRY_WINDOW_MS = 36 * 3_600_000;
/** the jitter adds up to this share of the base gap */
export const JITTER = 0.2;

/**
 * Gap before the next try after `failures` failed attempts: 1 s, 2 s, 4 s, ... doubled each time, plus up to
 * 20 % jitter (so many merchants' retries do not arrive in step), never more than 12 h.
 */
export function retryGap(failures: number, random: () => number): number {
  const base = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), MAX_RETRY_GAP_MS);
  return Math.min(Math.round(base * (1 + JITTER * random())), MAX_RETRY_GAP_MS);
}

/** The form body of a notification: its fields in their stored order. */
export function notificationBody(rec: OutboxRecord): string {
  return new URLSearchParams(rec.fields).toString();
}

export interface DeliveryOptions {
  /** random numbers in [0, 1) for the jitter; tests pass their own */
  random?: () => number;
  /** notifications handled per merchant per run */
  batch?: number;
  intervalMs?: number;
  /** sends in flight per notify host (SENDS_PER_HOST) */
  perHost?: number;
}

/**
 * A run waits for its sends this long (real time), not for a slow host: a send still out then goes on by
 * itself under its lease, and the next run starts on time for every other host and merchant.
 */
export const RUN_WAIT_MS = 1_000;
/** a due notification whose host had no free place all through a run waits this long in the queue */
export const HOST_BUSY_DELAY_MS = 1_000;

/** What the runs of one delivery job share: its host lanes, its sends still out, the current run's deadline. */
interface DeliveryRun {
  random: () => number;
  lanes: HostLanes;
  sending: Set<Promise<void>>;
  /** real time up to which the current run waits for a place or a send */
  deadline: number;
}

type Deps = Pick<CoreDeps, 'store' | 'clock' | 'liveClock' | 'merchants' | 'log' | 'notifyAllowPrivate' | 'transport' | 'metrics'>;

/**
 * The delivery worker over the outbox. Several gateway processes run it at once: each notification is
 * claimed by a versioned write that sets a lease, so only one process sends it at a time; a process that
 * dies mid-send leaves the lease to run out and another process sends again (delivery is at least once).
 *
 * One host cannot stall the others: at most SENDS_PER_HOST sends are out to a host at once (a due
 * notification waits for a place until the run's deadline, then a little in the queue, behind other hosts'),
 * and a run waits for its sends only until RUN_WAIT_MS after it started.
 */
export function deliveryJob(deps: Deps, options: DeliveryOptions = {}): BackgroundJob {
  const run: DeliveryRun = {
    random: options.random ?? Math.random,
    lanes: new HostLanes(options.perHost),
    sending: new Set(),
    deadline: 0,
  };
  const queueJob = dueQueueJob(deps, {
    name: 'notification-delivery',
    intervalMs: options.intervalMs ?? 500,
    queue: 'outbox',
    batch: options.batch ?? 50,
    concurrent: true,
    handle: (merchantId, notifyId) => deliverOne(deps, run, merchantId, notifyId),
  });
  return {
    name: queueJob.name,
    intervalMs: queueJob.intervalMs,
    get failedItems() {
      return queueJob.failedItems;
    },
    runOnce(): Promise<number> {
      run.deadline = Date.now() + RUN_WAIT_MS;
      return queueJob.runOnce();
    },
    async idle(): Promise<void> {
      while (run.sending.size > 0) await Promise.allSettled([...run.sending]);
    },
  };
}

/** Claims and sends one notification (recorded when the send ends); false when it is not this run's to send. */
async function deliverOne(deps: Deps, run: DeliveryRun, merchantId: string, notifyId: string): Promise<boolean> {
  const rec = await deps.store.getOutbox(merchantId, notifyId);
  const now = deps.clock.now();
  if (!rec || rec.status !== 'pending') {
    // a queue entry left behind (record gone or settled): drop it so it is not read again, but only while
    // the record is as read: a resend since then made it pending and queued it, and that entry must stay
    await deps.store.commit({
      merchantId,
      outboxUnchanged: [{ notifyId, version: rec?.version ?? 0 }],
      due: [{ queue: 'outbox', member: notifyId, at: null }],
    });
    return false;
  }
  if (rec.next_attempt_at > now || (rec.lease_until ?? 0) > now) return false;
  const host = hostOf(rec.notify_url);
  if (!(await run.lanes.take(host, run.deadline))) {
    // its host had its share of sends out all through this run: the notification waits a little, behind
    // other hosts' (only while it is as read: a send or a resend since keeps its own entry)
    await deps.store.commit({
      merchantId,
      outboxUnchanged: [{ notifyId, version: rec.version }],
      due: [{ queue: 'outbox', member: notifyId, at: deps.clock.now() + HOST_BUSY_DELAY_MS }],
    });
    return false;
  }
  let claimed = false;
  try {
    const next: OutboxRecord = { ...rec, lease_until: deps.clock.now() + DELIVERY_LEASE_MS };
    claimed = await deps.store.commit({ merchantId, outbox: [{ next, expected: rec.version }] });
  } finally {
    if (!claimed) run.lanes.release(host);
  }
  if (!claimed) return false;
  const send = sendAndRecord(deps, merchantId, rec, run.random).finally(() => run.lanes.release(host));
  run.sending.add(send);
  void send.finally(() => run.sending.delete(send));
  await untilDeadline(send, run.deadline);
  return true;
}

/** Resolves when the work ends or the deadline (real time) passes, whichever is first. */
function untilDeadline(work: Promise<void>, deadline: number): Promise<void> {
  const wait = deadline - Date.now();
  if (wait <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, wait);
    void work.finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Sends a claimed notification and records the attempt (delivered, or the next try). Never fails: a store
 * that does not answer leaves the lease to run out, and the notification is sent again.
 */
async function sendAndRecord(deps: Deps, merchantId: string, rec: OutboxRecord, random: () => number): Promise<void> {
  try {
    await recordAttempt(deps, merchantId, rec, await attempt(deps, rec), random);
  } catch (err) {
    deps.log.error(
      { notify_id: rec.notify_id, merchant_id: merchantId, err: { message: err instanceof Error ? err.message : String(err) } },
      'notification attempt not recorded; sent again when its lease ends',
    );
  }
}

async function recordAttempt(deps: Deps, merchantId: string, rec: OutboxRecord, result: PostResult, random: () => number): Promise<void> {
  const after = deps.clock.now();
  const { lease_until: _lease, ...base } = rec;
  const attempts = rec.attempts + 1;
  const tried = {
    at: after,
    ...(result.status !== undefined ? { status: result.status } : {}),
    ...(result.ok ? {} : { error: result.error }),
  };
  base.tries = [...(rec.tries ?? []), tried].slice(-MAX_TRIES_KEPT);
  let next: OutboxRecord;
  if (result.ok) {
    next = { ...base, status: 'delivered', attempts, delivered_at: after, last_error: '', version: 0 };
  } else {
    const at = after + retryGap(attempts - (rec.round_start_attempts ?? 0), random);
    const giveUp = at > (rec.retry_from ?? rec.created_at) + RETRY_WINDOW_MS;
    next = { ...base, status: giveUp ? 'failed' : 'pending', attempts, next_attempt_at: at, last_error: result.error, version: 0 };
  }
  const saved = await deps.store.commit({ merchantId, outbox: [{ next, expected: rec.version + 1 }] });
  deps.metrics.notificationAttempt(result.ok ? 'delivered' : next.status === 'failed' ? 'gave_up' : 'failed');
  deps.log.info(
    {
      notify_id: rec.notify_id,
      merchant_id: merchantId,
      notify_type: rec.notify_type,
      attempts,
      status: next.status,
      error: result.ok ? undefined : result.error,
      saved,
    },
    'notification attempt',
  );
}

async function attempt(deps: Deps, rec: OutboxRecord): Promise<PostResult> {
  const target = await checkNotifyTarget(rec.notify_url, deps.notifyAllowPrivate, deps.transport.resolve);
  if (!target.ok) return { ok: false, error: `notify_url refused: ${target.reason}` };
  const body = notificationBody(rec);
  const account = deps.merchants.find(rec.merchant_id, rec.account_id);
  if (!account) return { ok: false, error: 'account no longer configured' };
  const result = await deps.transport
    .post({
      url: rec.notify_url,
      body,
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        // the attempt's real time, on a test clock too: the receiver's replay window is in its own time
        'X-Signature': notificationHeader(body, account.sign_key, Math.floor((deps.liveClock ?? deps.clock).now() / 1000)),
        'User-Agent': 'payment-gateway-notifier/1',
      },
      timeoutMs: DELIVERY_TIMEOUT_MS,
      allowPrivate: deps.notifyAllowPrivate,
    })
    .catch((err: unknown): PostResult => ({ ok: false, error: (err as Error).message }));
  return result;
}
