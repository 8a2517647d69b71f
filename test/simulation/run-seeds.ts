import { MemoryKv } from '../../src/store/memory-kv.js';
import { simulate } from './simulate.js';
import { firstFailing, runSeeds } from './seeds.js';
import { acquirerRuns, adyenRunStub, stripeRunStub } from './acquirer-runs.js';
import type { Suite } from './mutants.js';

/**
 * Runs seeded simulations as `npm test` runs them (the same seed counts: SIM_SEEDS, SIM_STRIPE_SEEDS,
 * SIM_ADYEN_SEEDS), one suite after the other, stopping at the first failing seed, and prints what it found as
 * one JSON line (`SIM-RESULT {...}`). The mutants check (mutants.test.ts) runs it in a patched copy of the
 * source: `npx tsx test/simulation/run-seeds.ts stripe,memory`.
 */
const SEEDS: Record<Suite, number> = {
  memory: Number(process.env.SIM_SEEDS ?? 2_000),
  stripe: Number(process.env.SIM_STRIPE_SEEDS ?? 300),
  adyen: Number(process.env.SIM_ADYEN_SEEDS ?? 40),
};

const ran: Record<string, number> = {};
const started = Date.now();
let found: { suite: Suite; failing: number; violations: string[] } | undefined;
for (const suite of (process.argv[2] ?? '').split(',') as Suite[]) {
  const seeds = Array.from({ length: SEEDS[suite] }, (_, i) => i + 1);
  const results =
    suite === 'memory'
      ? await runSeeds(seeds, 32, true, (seed) => simulate(seed, new MemoryKv(), { steps: 24, badWrites: false, lostCommits: true }))
      : (await acquirerRuns(seeds, suite === 'stripe' ? stripeRunStub : () => adyenRunStub(), true)).results;
  ran[suite] = results.length;
  const first = firstFailing(results);
  if (first) {
    found = { suite, failing: first.seed, violations: first.violations.slice(0, 3) };
    break;
  }
}
console.log(`SIM-RESULT ${JSON.stringify({ ran, seconds: Math.round((Date.now() - started) / 100) / 10, ...(found ?? {}) })}`);
process.exit(0);
