import type { BackgroundJob } from './due-queue.js';
import type { Logger } from '../ports/deps.js';

export interface JobRunner {
  /** stops scheduling and waits for runs in flight, and for work they left running (notification sends) */
  stop(): Promise<void>;
}

/**
 * Runs each job on its own timer; a failing run is logged and retried at the next tick. Items that fail
 * inside a run (see dueQueueJob) are reported with the run's counts.
 */
export function startJobs(jobs: readonly BackgroundJob[], log: Logger): JobRunner {
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  const schedule = (job: BackgroundJob): void => {
    if (stopped) return;
    const t = setTimeout(() => {
      timers.delete(t);
      const failedBefore = job.failedItems ?? 0;
      const run = job
        .runOnce()
        .then((n) => {
          const failed = (job.failedItems ?? 0) - failedBefore;
          if (failed > 0) log.warn({ job: job.name, handled: n, failed, failed_total: job.failedItems }, 'job run: some items failed');
          else if (n > 0) log.debug({ job: job.name, handled: n }, 'job run');
        })
        .catch((err: unknown) => log.error({ job: job.name, err: { message: (err as Error).message } }, 'job run failed'))
        .finally(() => {
          running.delete(run);
          schedule(job);
        });
      running.add(run);
    }, job.intervalMs);
    t.unref();
    timers.add(t);
  };
  for (const job of jobs) schedule(job);
  return {
    stop: async () => {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      await Promise.allSettled([...running]);
      await Promise.allSettled(jobs.map((job) => job.idle?.()));
    },
  };
}
