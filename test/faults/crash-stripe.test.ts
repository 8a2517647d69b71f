import { afterAll, describe, expect, it } from 'vitest';
import { StripeStub } from '../support/acquirers/stripe-stub.js';
import { STRIPE_ENV, acquirerMerchants } from '../support/acquirers/accounts.js';
import { runCrashScenario, stopCrashScenarios } from './support/crash-scenario.js';

/**
 * The crash test with the account on the Stripe connector (issue 38): the gateway process on real Redis, its
 * SDK talking to the Stripe stub, under authorise and batch capture load, is killed with SIGKILL and started
 * again. Every acknowledged payment is kept, none stays pending after recovery, and the stub's own records show
 * no payment charged or captured twice, and every capture Stripe made recorded by the gateway.
 */
const stripe = new StripeStub();
afterAll(async () => {
  await stopCrashScenarios();
  await stripe.stop();
});

/** Keys seen more than once. */
const repeated = (keys: string[]): string[] => keys.filter((k, i) => keys.indexOf(k) !== i);

describe('a gateway on the Stripe connector killed under load (SIGKILL) and started again', () => {
  it('then every acknowledged payment is kept, none stays pending, and Stripe charged and captured each at most once', async () => {
    await stripe.start();
    const run = await runCrashScenario({
      name: 'crash-stripe',
      merchants: acquirerMerchants('stripe', stripe.baseUrl),
      // the stub's search shows an intent at once (Stripe's trails by about a minute)
      env: { STRIPE_SEARCH_LAG_SECONDS: '0', ...STRIPE_ENV },
      authoriseLoops: 20,
      captureBatch: 30,
      enough: { payments: 60, captures: 15 },
      loadMs: 12_000,
      killAfterMs: 200,
    });
    expect(run.acknowledged.size).toBeGreaterThan(10);
    // Stripe's side, from the stub's own records
    const chargedTwice = repeated([...stripe.intents.values()].map((pi) => pi.metadata.gateway_reference!));
    const capturedTwice = repeated(stripe.captures.map(([id]) => id));
    const capturedAtStripe = [...stripe.intents.values()]
      .filter((pi) => pi.status === 'succeeded')
      .map((pi) => pi.metadata.gateway_reference!);
    const capturedNotRecorded = capturedAtStripe.filter((txn) => run.byTransaction.get(txn)?.status !== '3100');
    const recordedNotCaptured = run.stored.filter((p) => p.captured > 0 && stripe.intentFor(p.transaction_id)?.status !== 'succeeded');
    console.info(
      `crash test (Stripe): ${run.acknowledged.size} payments and ${run.captureAcknowledged.size} captures acknowledged before SIGKILL; ` +
        `${run.stored.length} stored; ${run.pending.length} pending after recovery; ${stripe.intents.size} intents and ${stripe.captures.length} captures at the stub`,
    );
    expect(run.lost).toEqual([]);
    expect(run.pending).toEqual([]);
    expect(run.capturedButNot).toEqual([]);
    expect(chargedTwice).toEqual([]);
    expect(capturedTwice).toEqual([]);
    expect(capturedNotRecorded).toEqual([]);
    expect(recordedNotCaptured.map((p) => p.transaction_id)).toEqual([]);
  }, 90_000);
});
