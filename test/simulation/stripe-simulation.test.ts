import { describe, expect, it } from 'vitest';
import { acquirerRuns, acquirerSeeds, stripeRunStub } from './acquirer-runs.js';

/**
 * The seeded fault simulation's flows with every account on the Stripe connector, through Stripe's SDK to the
 * Stripe stub on a loopback port (issue 38): the same faults at the step boundaries (a call that throws after
 * acting, a process that dies, status unavailable, late answers), and Stripe as it behaves in time, on the run's
 * clock: a request whose answer is lost, or which Stripe carries out seconds later while a repeat under its key
 * is answered 409 (in progress); intents `processing` before they are approved or declined; refunds `pending`
 * before they succeed or fail; a search and a refunds list that trail Stripe's objects; webhooks late, twice,
 * out of order. Stripe's dispute test cards play as Stripe plays them (a dispute opened by webhook once the
 * charge succeeds, the merchant's evidence decided): a closed dispute says what Stripe decided. The invariants
 * compare Stripe's own records (the stub's) with the gateway's. The stub is real I/O, so a seed replays its
 * faults but not every interleaving; SIM_STRIPE_SEEDS sets how many run.
 */
const SEEDS = acquirerSeeds('SIM_STRIPE_SEED', 300);

describe('the seeded fault simulation on the Stripe connector', () => {
  it(`when ${SEEDS.length} seeded runs go through the core to the Stripe stub with faults at every step, then every invariant holds`, async () => {
    const runs = await acquirerRuns(SEEDS, stripeRunStub, false, 'SIM_STRIPE_SEED');
    const n = (k: string) => runs.counts[k] ?? 0;
    console.log(`stripe simulation: ${JSON.stringify(runs.counts)}`);
    expect(runs.faults).toBeGreaterThan(0);
    // Stripe was asked (the runs did not all stay on the sandbox)
    expect(n('charges')).toBeGreaterThan(SEEDS.length);
    // and behaved in time: answers lost, requests carried out later, intents processing, refunds pending
    if (SEEDS.length >= 100)
      for (const k of ['answer-lost', 'act-later', 'processing', 'refunds pending']) expect(n(k), k).toBeGreaterThan(0);
    // its disputes were opened and decided, the merchant's answers to them meeting the same faults
    // (a dispute is answered and decided in about one run of twenty-five)
    if (SEEDS.length >= 40) expect(n('disputes opened')).toBeGreaterThan(0);
    if (SEEDS.length >= 300) expect(n('disputes decided')).toBeGreaterThan(0);
    expect(runs.failed.length, `${runs.failed.length} of ${runs.results.length} seeds broke an invariant\n${runs.shown}`).toBe(0);
  }, 300_000);
});
