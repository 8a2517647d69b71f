import { describe, expect, it } from 'vitest';
import { acquirerRuns, acquirerSeeds, adyenRunStub } from './acquirer-runs.js';

/**
 * The seeded fault simulation's flows with every account on the Adyen connector, through Adyen's library to
 * the Adyen stub on a loopback port (issue 38): the same faults at the step boundaries (a call that throws
 * after acting, a process that dies, status unavailable, late answers), and Adyen as it behaves in time, on the
 * run's clock: a request whose answer is lost, or which Adyen carries out seconds later while a repeat under its
 * Idempotency-Key is answered 422 with error code 704 (in progress); payments answered `Received` or `Pending`
 * and decided later; refunds refused after they were received; captures failed later (CAPTURE_FAILED, its
 * webhook with or before the CAPTURE's); webhooks late, twice, out of order, each sent again until the gateway
 * acknowledges it (Adyen cannot be asked by reference). The invariants compare the stub's own records with the
 * gateway's. SIM_ADYEN_SEEDS sets how many run.
 */
const SEEDS = acquirerSeeds('SIM_ADYEN_SEED', 40);

describe('the seeded fault simulation on the Adyen connector', () => {
  it(`when ${SEEDS.length} seeded runs go through the core to the Adyen stub with faults at every step, then every invariant holds`, async () => {
    const runs = await acquirerRuns(SEEDS, () => adyenRunStub(), false, 'SIM_ADYEN_SEED');
    const n = (k: string) => runs.counts[k] ?? 0;
    console.log(`adyen simulation: ${JSON.stringify(runs.counts)}`);
    expect(runs.faults).toBeGreaterThan(0);
    // Adyen was asked (the runs did not all stay on the sandbox)
    expect(n('charges')).toBeGreaterThan(SEEDS.length);
    // and behaved in time: captures failed later, payments decided later, answers lost, requests carried out later
    if (SEEDS.length >= 40)
      for (const k of ['captures failed later', 'decided later', 'answer-lost', 'act-later']) expect(n(k), k).toBeGreaterThan(0);
    expect(runs.failed.length, `${runs.failed.length} of ${runs.results.length} seeds broke an invariant\n${runs.shown}`).toBe(0);
  }, 300_000);
});
