import type { RunResult } from './simulate.js';

/**
 * Runs seeds `lanes` at a time (each its own store); the runs' sleeps overlap, their state does not. Seeds are
 * started in the order given. With `stopAtFailure`, once a seed fails no later seed is started, and the seeds
 * started before it still finish: the lowest failing seed among the results is then the first failing seed of
 * the whole list, whatever the lanes' timing.
 */
export async function runSeeds(
  seeds: readonly number[],
  lanes: number,
  stopAtFailure: boolean,
  run: (seed: number, lane: number) => Promise<RunResult>,
): Promise<RunResult[]> {
  const results: RunResult[] = [];
  let next = 0;
  let stopAt = Number.POSITIVE_INFINITY;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      while (next < seeds.length && next < stopAt) {
        const i = next++;
        const result = await run(seeds[i]!, lane);
        results.push(result);
        if (stopAtFailure && result.violations.length > 0) stopAt = Math.min(stopAt, i + 1);
      }
    }),
  );
  return results;
}

/** The lowest failing seed of a run (undefined: none failed). */
export function firstFailing(results: readonly RunResult[]): RunResult | undefined {
  return results.filter((r) => r.violations.length > 0).sort((a, b) => a.seed - b.seed)[0];
}
