import { describe, expect, it } from 'vitest';
import { meteredJob } from '../../../src/core/schedule/metered.js';
import type { BackgroundJob } from '../../../src/core/schedule/due-queue.js';
import type { GatewayMetrics } from '../../../src/core/ports/metrics.js';

/** A job whose runs are scripted: each run handles n items, fails f of them, or throws. */
function scriptedJob(runs: ({ handled: number; failed: number } | 'throw')[]): BackgroundJob {
  let failed = 0;
  return {
    name: 'scripted',
    intervalMs: 10,
    get failedItems() {
      return failed;
    },
    async runOnce() {
      const r = runs.shift()!;
      if (r === 'throw') throw new Error('store down');
      failed += r.failed;
      return r.handled;
    },
  };
}

describe('meteredJob', () => {
  it('when runs succeed, lose items, or fail, then each is reported ok, partial or error, and failedItems still reads through', async () => {
    const reported: string[] = [];
    const metrics: GatewayMetrics = {
      paymentSettled: () => undefined,
      notificationAttempt: () => undefined,
      jobRun: (job, result) => reported.push(`${job}:${result}`),
      disputeMoved: () => undefined,
      reconciliationDiscrepancy: () => undefined,
    };
    const job = meteredJob(scriptedJob([{ handled: 3, failed: 0 }, { handled: 2, failed: 1 }, 'throw']), metrics);
    expect(await job.runOnce()).toBe(3);
    expect(await job.runOnce()).toBe(2);
    await expect(job.runOnce()).rejects.toThrow('store down');
    expect(reported).toEqual(['scripted:ok', 'scripted:partial', 'scripted:error']);
    expect(job.failedItems).toBe(1);
    expect(job.name).toBe('scripted');
  });
});
