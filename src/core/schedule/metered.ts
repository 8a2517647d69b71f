import type { BackgroundJob } from './due-queue.js';
import type { GatewayMetrics } from '../ports/metrics.js';

/**
 * The job, counting each run in gateway_job_runs_total{job,result}: `ok`, `partial` (the run finished but
 * some items threw and were put back: failedItems grew) or `error` (the run itself failed).
 */
export function meteredJob(job: BackgroundJob, metrics: GatewayMetrics): BackgroundJob {
  return {
    name: job.name,
    intervalMs: job.intervalMs,
    get failedItems() {
      return job.failedItems;
    },
    idle: () => job.idle?.() ?? Promise.resolve(),
    async runOnce(): Promise<number> {
      const failedBefore = job.failedItems ?? 0;
      try {
        const handled = await job.runOnce();
        metrics.jobRun(job.name, (job.failedItems ?? 0) > failedBefore ? 'partial' : 'ok');
        return handled;
      } catch (err) {
        metrics.jobRun(job.name, 'error');
        throw err;
      }
    },
  };
}
