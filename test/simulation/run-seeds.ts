import { MemoryKv } from '../../src/store/memory-kv.js';
import { simulate, type RunResult } from './simulate.js';
import { firstFailing, runSeeds } from './seeds.js';
import { acquirerRuns, adyenRunStub, stripeRunStub } from './acquirer-runs.js';
import type { Suite } from './mutants.js';

/**
 * Runs seeded simulations as `npm test` runs them, for the mutants check (mutants.test.ts), and prints what it
 * found as one JSON line (`SIM-RESULT {...}`):
 * - `run-seeds.ts stripe,memory`: each suite with the seed count CI runs (SIM_SEEDS, SIM_STRIPE_SEEDS,
 *   SIM_ADYEN_SEEDS), one after the other, stopping at the first failing seed;
 * - `run-seeds.ts --only stripe:4,memory:22`: just those seeds, each answering whether it failed.
 */
const SEEDS: Record<Suite, number> = {
  memory: Number(process.env.SIM_SEEDS ?? 2_000),
  stripe: Number(process.env.SIM_STRIPE_SEEDS ?? 300),
  adyen: Number(process.env.SIM_ADYEN_SEEDS ?? 40),
};

function run(suite: Suite, seeds: number[], stopAtFailure: boolean): Promise<RunResult[]> {
  if (suite === 'memory')
    return runSeeds(seeds, 32, stopAtFailure, (seed) => simulate(seed, new MemoryKv(), { steps: 24, badWrites: false, lostCommits: true }));
  return acquirerRuns(seeds, suite === 'stripe' ? stripeRunStub : () => adyenRunStub(), stopAtFailure).then((r) => r.results);
}

const started = Date.now();
const seconds = () => Math.round((Date.now() - started) / 100) / 10;
if (process.argv[2] === '--only') {
  const failing: { suite: Suite; seed: number; violations: string[] }[] = [];
  for (const pair of (process.argv[3] ?? '').split(',').filter(Boolean)) {
    const [suite, seed] = pair.split(':') as [Suite, string];
    const [r] = await run(suite, [Number(seed)], false);
    if (r && r.violations.length > 0) failing.push({ suite, seed: r.seed, violations: r.violations.slice(0, 3) });
  }
  console.log(`SIM-RESULT ${JSON.stringify({ seconds: seconds(), failing })}`);
} else {
  const ran: Record<string, number> = {};
  let found: { suite: Suite; failing: number; violations: string[] } | undefined;
  for (const suite of (process.argv[2] ?? '').split(',') as Suite[]) {
    const seeds = Array.from({ length: SEEDS[suite] }, (_, i) => i + 1);
    const results = await run(suite, seeds, true);
    ran[suite] = results.length;
    const first = firstFailing(results);
    if (first) {
      found = { suite, failing: first.seed, violations: first.violations.slice(0, 3) };
      break;
    }
  }
  console.log(`SIM-RESULT ${JSON.stringify({ ran, seconds: seconds(), ...(found ?? {}) })}`);
}
process.exit(0);
