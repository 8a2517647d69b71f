import type { CoreDeps } from '../ports/deps.js';
import { dueQueueJob, type BackgroundJob } from '../schedule/due-queue.js';
import { runAdvance, takeAdvance } from './advance.js';
import { clockDeps } from '../clocks/clock-deps.js';
import { MAX_CLOCKS } from '../clocks/clocks.js';
import { deliveryJob } from '../notifications/delivery.js';

/**
 * The test clocks' job (docs/test-clocks.md), in every process:
 * - runs advances: an advance is entered in the live `test_clock` queue when it starts (due at once) and at its
 *   lease's end while it runs; whoever finds it due takes the lease (a versioned write, one process wins) and runs
 *   it, so an advance whose process died is resumed from the time it recorded;
 * - sends a ready clock's notifications due at the clock's time (the first try of each, made by a payment call
 *   on the clock): retries fall due later in the clock's time, and are sent by its advances.
 */
export function testClockJob(deps: CoreDeps, options: { intervalMs?: number } = {}): BackgroundJob {
  const advances = dueQueueJob(deps, {
    name: 'test-clocks',
    intervalMs: options.intervalMs ?? 500,
    queue: 'test_clock',
    batch: 20,
    concurrent: true,
    handle: async (m, id) => {
      const clock = await deps.store.getTestClock(m, id);
      if (!clock || clock.clock_status !== 'advancing') {
        await deps.store.commit({ merchantId: m, due: [{ queue: 'test_clock', member: id, at: null }] });
        return false;
      }
      const held = await takeAdvance(deps, m, id);
      return held ? runAdvance(deps, held) : false;
    },
  });
  let failedItems = 0;
  return {
    name: advances.name,
    intervalMs: advances.intervalMs,
    get failedItems() {
      return (advances.failedItems ?? 0) + failedItems;
    },
    async runOnce(): Promise<number> {
      let handled = await advances.runOnce();
      for (const m of deps.merchants.merchantIds()) {
        try {
          handled += await sendReadyClocksNotifications(deps, m);
        } catch (err) {
          failedItems++;
          deps.log.error(
            { job: 'test-clocks', merchant_id: m, err: { message: (err as Error).message } },
            'test clock notifications not sent',
          );
        }
      }
      return handled;
    },
  };
}

async function sendReadyClocksNotifications(deps: CoreDeps, m: string): Promise<number> {
  let sent = 0;
  for (const clock of await deps.store.testClocksOf(m, MAX_CLOCKS * 10)) {
    if (clock.clock_status !== 'ready') continue;
    const due = await deps.store.due(m, 'outbox', clock.frozen_time, 1, clock.test_clock_id);
    if (due.length === 0) continue;
    const delivery = deliveryJob(clockDeps(deps, clock));
    sent += await delivery.runOnce();
    await delivery.idle?.();
  }
  return sent;
}
