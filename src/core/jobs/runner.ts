import type { BackgroundJob } from './due-queue.js';
import type { Logger } from '../ports/deps.js';

export interface JobRunner {
  /** stops scheduling and waits for runs in flight */
  stop(): Promise<void>;
}

/** Runs each job on its own timer; a failing run is logged and retried at the next tick. */
export function startJobs(jobs: readonly BackgroundJob[], log: Logger): JobRunner {
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  const schedule = (job: BackgroundJob): void => {
    if (stopped) return;
    const t = setTimeout(() => {
      timers.delete(t);
      const run = job
        .runOnce()
        .then((n) => {
          if (n > 0) log.debug({ job: job.name, handled: n }, 'job run');
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
    },
  };
}
