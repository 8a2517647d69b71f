import { describe, expect, it } from 'vitest';
import { canMovePayout, isFinalPayout } from '../../../src/core/payouts/payout-state.js';
import type { PayoutStatus } from '../../../src/core/records/payout.js';

describe('when a payout status change is asked for', () => {
  it.each([
    ['PENDING', 'PROCESSING', true],
    ['PENDING', 'FAILED', true],
    ['PENDING', 'COMPLETED', false],
    ['PROCESSING', 'COMPLETED', true],
    ['PROCESSING', 'FAILED', true],
    ['PROCESSING', 'PENDING', false],
    ['COMPLETED', 'FAILED', false],
    ['FAILED', 'COMPLETED', false],
    ['FAILED', 'PROCESSING', false],
  ] as const)('when %s -> %s, then allowed is %s', (from, to, allowed) => {
    expect(canMovePayout(from as PayoutStatus, to as PayoutStatus)).toBe(allowed);
  });

  it('then only COMPLETED and FAILED are final', () => {
    expect(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'].filter((s) => isFinalPayout(s as PayoutStatus))).toEqual([
      'COMPLETED',
      'FAILED',
    ]);
  });
});
