import { describe, expect, it } from 'vitest';
import { pathTo } from '../../../src/core/disputes/transitions.js';
import { emptyEvidence, type DisputeRecord, type DisputeStatus } from '../../../src/core/disputes/dispute-record.js';

function dispute(status: DisputeStatus): DisputeRecord {
  return {
    version: 1,
    dispute_id: 'T1-D01',
    merchant_id: 'm',
    account_id: 'a',
    transaction_id: 'T1',
    order_no: 'O1',
    amount: 1000,
    currency: 'USD',
    reason: 'fraudulent',
    status,
    opened_at: 0,
    due_at: 7 * 86_400_000,
    closed_at: null,
    evidence: emptyEvidence(),
    evidence_submitted_at: null,
    fee: 1500,
    history: [{ at: 0, from: '', to: status, cause: 'opened' }],
  } as DisputeRecord;
}

const statuses = (steps: DisputeRecord[] | undefined) => steps?.map((d) => d.status);

describe('the moves of a dispute (DESIGN 13)', () => {
  it('when the acquirer reports won a dispute the gateway has awaiting a response, then it passes through under_review, each move recorded', () => {
    const steps = pathTo(dispute('needs_response'), 'won', 5, 'decided');
    expect(statuses(steps)).toEqual(['under_review', 'won']);
    expect(steps![1]!.history.map((h) => [h.from, h.to])).toEqual([
      ['', 'needs_response'],
      ['needs_response', 'under_review'],
      ['under_review', 'won'],
    ]);
    expect(steps![1]!.closed_at).toBe(5);
  });

  it('when an inquiry is reported won, then it escalates, is reviewed and is won, in that order', () => {
    expect(statuses(pathTo(dispute('inquiry'), 'won', 5, 'decided'))).toEqual(['needs_response', 'under_review', 'won']);
  });

  it('when anything but an acquirer decision would win a dispute awaiting a response, then the table refuses it', () => {
    expect(pathTo(dispute('needs_response'), 'won', 5, 'evidence')).toBeUndefined();
    expect(pathTo(dispute('won'), 'lost', 5, 'decided')).toBeUndefined();
    expect(statuses(pathTo(dispute('needs_response'), 'lost', 5, 'deadline'))).toEqual(['lost']);
  });
});
