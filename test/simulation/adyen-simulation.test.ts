import { describe, expect, it } from 'vitest';
import { MemoryKv } from '../../src/store/memory-kv.js';
import { adyenEvent } from '../../src/core/connectors/adyen/events.js';
import { AdyenStub } from '../support/acquirers/adyen-stub.js';
import { ADYEN_HMAC } from '../support/acquirers/accounts.js';
import { simulate, type RunResult } from './simulate.js';
import type { SimAcquirer } from './world.js';

/**
 * The seeded fault simulation's flows with every account on the Adyen connector, through Adyen's library to
 * the Adyen stub on a loopback port (issue 38): the same faults at the step boundaries (a call that throws
 * after acting, a process that dies, status unavailable, late answers), Adyen's webhooks for what it did
 * arriving during recovery (Adyen cannot be asked by reference), and the same invariants, comparing the stub's
 * own records with the gateway's. SIM_ADYEN_SEEDS sets how many run.
 */
const SEEDS = Number(process.env.SIM_ADYEN_SEEDS ?? 40);

describe('the seeded fault simulation on the Adyen connector', () => {
  it(`when ${SEEDS} seeded runs go through the core to the Adyen stub with faults at every step, then every invariant holds`, async () => {
    const results: RunResult[] = [];
    let payments = 0;
    const seeds = Array.from({ length: SEEDS }, (_, i) => 1 + i);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < seeds.length) {
          const seed = seeds[next++]!;
          // an Adyen account of its own per run: the runs' counting ids repeat from seed to seed
          const stub = await new AdyenStub().start();
          try {
            const acquirer: SimAcquirer = {
              code: 'adyen',
              baseUrl: stub.baseUrl,
              status: (reference) => stub.status(reference),
              // the shopper at Adyen's challenge page: the return carries Adyen's redirectResult
              challengeAnswer: (transactionId, passed) => {
                const payment = stub.paymentFor(transactionId);
                return payment ? stub.redirectResult(payment.pspReference, passed) : '';
              },
              events: () => stub.pendingNotifications(ADYEN_HMAC).map(adyenEvent),
            };
            results.push(await simulate(seed, new MemoryKv(), { steps: 24, badWrites: false, lostCommits: false, acquirer }));
            payments += stub.payments.size;
          } finally {
            await stub.stop();
          }
        }
      }),
    );
    const failed = results.filter((r) => r.violations.length > 0);
    expect(results.reduce((n, r) => n + r.faults.length, 0)).toBeGreaterThan(0);
    // Adyen was asked (the runs did not all stay on the sandbox)
    expect(payments).toBeGreaterThan(SEEDS);
    const shown = failed
      .slice(0, 2)
      .map((r) => [`seed ${r.seed}`, ...r.violations.map((v) => `  ! ${v}`), ...r.trace.map((t) => `  ${t}`)].join('\n'));
    expect(failed.length, `${failed.length} of ${results.length} seeds broke an invariant\n${shown.join('\n\n')}`).toBe(0);
  }, 120_000);
});
