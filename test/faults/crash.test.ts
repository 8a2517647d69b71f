import { afterAll, describe, expect, it } from 'vitest';
import { testMerchants } from '../support/gateway.js';
import { runCrashScenario, stopCrashScenarios } from './support/crash-scenario.js';

/**
 * The crash test (docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery): the gateway process on real Redis (appendfsync always) under authorise and batch
 * capture load is killed with SIGKILL, then started again. Every acknowledged payment must be stored, none may
 * stay pending past the recovery window, and the acquirer (the sandbox ledger) must have captured none twice.
 */
afterAll(stopCrashScenarios);

describe('a gateway killed under load (SIGKILL) and started again', () => {
  it('then every acknowledged payment is stored, none stays pending after recovery, and no capture happened twice', async () => {
    const run = await runCrashScenario({
      name: 'crash',
      merchants: testMerchants(),
      authoriseLoops: 30,
      captureBatch: 50,
      enough: { payments: 80, captures: 20 },
      loadMs: 15_000,
      killAfterMs: 300,
    });
    expect(run.acknowledged.size).toBeGreaterThan(20);
    // the acquirer's ledger: one capture record per captured payment, none for any other
    const markers = await run.redis.keys('acq:*#capture');
    const captureRecords = (await run.redis.keys('acq:*-cap')).length;
    const capturedPayments = run.stored.filter((p) => p.captured > 0).length;
    console.info(
      `crash test: ${run.acknowledged.size} payments and ${run.captureAcknowledged.size} captures acknowledged before SIGKILL; ` +
        `${run.stored.length} stored; ${run.pending.length} pending after recovery; ${capturedPayments} captured, ${captureRecords} capture records at the acquirer`,
    );
    expect(run.lost).toEqual([]);
    expect(run.pending).toEqual([]);
    expect(run.capturedButNot).toEqual([]);
    expect(captureRecords).toBe(capturedPayments);
    expect(markers.length).toBe(capturedPayments);
  }, 90_000);
});
