import { describe, expect, it } from 'vitest';
import { canMoveDispute, disputeMoves, pathTo } from '../../../src/core/disputes/transitions.js';
import { emptyEvidence, type DisputeRecord, type DisputeStatus } from '../../../src/core/records/dispute-record.js';

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

describe('the moves of a dispute (docs/disputes.md)', () => {
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
    expect(pathTo(dispute('needs_response'), 'won', 5, 'accepted')).toBeUndefined();
  });

  it('when the due date passes, then the table has no move for the deadline: only the acquirer’s decision or the merchant’s acceptance loses a dispute', () => {
    expect(pathTo(dispute('needs_response'), 'lost', 5, 'deadline')).toBeUndefined();
    expect(pathTo(dispute('inquiry'), 'lost', 5, 'deadline')).toBeUndefined();
    expect(statuses(pathTo(dispute('needs_response'), 'lost', 5, 'decided'))).toEqual(['lost']);
    expect(statuses(pathTo(dispute('needs_response'), 'lost', 5, 'accepted'))).toEqual(['lost']);
  });

  it('when the acquirer reverses its decision, then won becomes lost and lost becomes won, closed_at the latest decision; no one else may reverse it', () => {
    const lost = { ...dispute('lost'), closed_at: 3 };
    const reversed = pathTo(lost, 'won', 9, 'decided');
    expect(statuses(reversed)).toEqual(['won']);
    expect(reversed![0]!.closed_at).toBe(9);
    expect(statuses(pathTo(reversed![0]!, 'lost', 12, 'decided'))).toEqual(['lost']);
    for (const cause of ['opened', 'escalated', 'evidence', 'accepted', 'deadline'] as const) {
      expect(canMoveDispute('lost', 'won', cause), cause).toBe(false);
      expect(canMoveDispute('won', 'lost', cause), cause).toBe(false);
    }
  });

  it('when the table is listed, then it holds exactly the moves docs/disputes.md documents', () => {
    expect(disputeMoves()).toEqual([
      ['inquiry', 'needs_response', ['escalated', 'evidence', 'accepted', 'decided']],
      ['needs_response', 'under_review', ['evidence', 'decided']],
      ['needs_response', 'lost', ['accepted', 'decided']],
      ['under_review', 'won', ['decided']],
      ['under_review', 'lost', ['decided']],
      ['won', 'lost', ['decided']],
      ['lost', 'won', ['decided']],
    ]);
  });
});
