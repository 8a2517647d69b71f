import { describe, expect, it } from 'vitest';
import { StripeStub } from '../support/acquirers/stripe-stub.js';
import { acquirerRuns } from './acquirer-runs.js';
import type { SimAcquirer } from './world.js';
import type Stripe from 'stripe';
import { stripeEvent } from '../../src/core/connectors/stripe/events.js';

/**
 * The seeded fault simulation's flows with every account on the Stripe connector, through Stripe's SDK to the
 * Stripe stub on a loopback port (issue 38): the same faults at the step boundaries (a call that throws after
 * acting, a process that dies, status unavailable, late answers), recovery to quiescence, and the same
 * invariants, now comparing Stripe's record (what the connector's status reads from the stub) with the
 * gateway's. The stub is real I/O, so a seed replays its faults but not every interleaving; SIM_STRIPE_SEEDS
 * sets how many run.
 */
const SEEDS = Number(process.env.SIM_STRIPE_SEEDS ?? 40);

describe('the seeded fault simulation on the Stripe connector', () => {
  it(`when ${SEEDS} seeded runs go through the core to the Stripe stub with faults at every step, then every invariant holds`, async () => {
    const runs = await acquirerRuns(SEEDS, async () => {
      const stub = await new StripeStub().start();
      const acquirer: SimAcquirer = {
        code: 'stripe',
        baseUrl: stub.baseUrl,
        // the shopper on Stripe's own challenge page: Stripe authorises (or fails) the intent there by itself,
        // whether or not the shopper comes back; an intent no longer waiting (cancelled) takes no answer
        challengeAnswer: (transactionId, passed) => {
          const intent = stub.intentFor(transactionId);
          if (intent?.status === 'requires_action') stub.finishChallenge(intent.id, passed);
          return '';
        },
        // its webhooks: an intent authorised or failed on Stripe's page settles a payment still waiting on it
        events: () => stub.pendingEvents().map((e) => stripeEvent(e as unknown as Stripe.Event)),
      };
      return { acquirer, charges: () => stub.intents.size, stop: () => stub.stop() };
    });
    expect(runs.faults).toBeGreaterThan(0);
    // Stripe was asked (the runs did not all stay on the sandbox)
    expect(runs.charges).toBeGreaterThan(SEEDS);
    expect(runs.failed.length, `${runs.failed.length} of ${runs.results.length} seeds broke an invariant\n${runs.shown}`).toBe(0);
  }, 120_000);
});
