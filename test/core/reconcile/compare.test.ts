import { describe, expect, it } from 'vitest';
import { compareBooks } from '../../../src/core/reconcile/compare.js';
import type { AcquirerBooks } from '../../../src/core/ports/acquirer-books.js';
import type { Payment } from '../../../src/core/records/payment.js';
import type { DisputeRecord } from '../../../src/core/records/dispute-record.js';
import { DECISION_DELAY_MS } from '../../../src/core/disputes/rules.js';

const NOW = Date.UTC(2026, 10, 21, 10);
const TXN = 'T20261121100000001';

/** A payment of 50.00 USD as the gateway records it; the fields compareBooks reads. */
const payment = (over: Partial<Payment> = {}): Payment =>
  ({
    transaction_id: TXN,
    merchant_id: '1000001',
    account_id: '1000001001',
    currency: 'USD',
    amount: 5000,
    status: '3000',
    captured: 0,
    refunded: 0,
    refunds: [],
    connector_ref: 'sbx_1',
    ...over,
  }) as Payment;

/** The acquirer's books of that payment: authorised 50.00, nothing else. */
const books = (over: Partial<AcquirerBooks> = {}): AcquirerBooks => ({
  authorisations: [
    { reference: TXN, connectorRef: 'sbx_1', status: 'approved', amount: 5000, currency: 'USD', voided: false, final: true },
  ],
  capture: { status: 'none', amount: 0, final: true },
  refunds: [],
  disputes: [],
  ...over,
});

describe('comparing the acquirer’s books with the gateway’s record', () => {
  it('when both agree, then there is nothing to do', () => {
    expect(compareBooks(payment(), [], books(), NOW)).toEqual({ catchUps: [], differences: [] });
    const captured = payment({ status: '3100', captured: 5000 });
    expect(compareBooks(captured, [], books({ capture: { status: 'succeeded', amount: 5000, final: true } }), NOW).differences).toEqual([]);
  });

  it('when the acquirer approved an authorisation the gateway declined and never voided, then it is an authorisation discrepancy', () => {
    const found = compareBooks(payment({ status: '4000' }), [], books(), NOW);
    expect(found.differences).toEqual([{ kind: 'authorisation', acquirer: 5000, gateway: 0, references: [TXN, 'sbx_1'] }]);
    // voided at the acquirer (the late approval rule): nothing held on either side
    const voided = books({ authorisations: [{ ...books().authorisations[0]!, voided: true }] });
    expect(compareBooks(payment({ status: '4000' }), [], voided, NOW).differences).toEqual([]);
  });

  it('when captured amounts differ, then it is a capture discrepancy; a capture the acquirer failed later is caught up instead', () => {
    const captured = payment({ status: '3100', captured: 5000 });
    expect(compareBooks(captured, [], books({ capture: { status: 'succeeded', amount: 3000, final: true } }), NOW).differences).toEqual([
      { kind: 'capture', acquirer: 3000, gateway: 5000, references: [`${TXN}-cap`] },
    ]);
    expect(compareBooks(captured, [], books({ capture: { status: 'failed', amount: 0, final: true } }), NOW)).toEqual({
      catchUps: [{ act: 'capture-failed' }],
      differences: [],
    });
  });

  it('when something is still in flight at the acquirer, then it is neither caught up nor a discrepancy', () => {
    const refunded = payment({
      status: '3200',
      captured: 5000,
      refunded: 1000,
      refunds: [
        {
          refund_reference_id: `${TXN}-01`,
          refund_amount: 1000,
          refund_reason: '',
          refund_status: '1',
          refund_message: 'V0000:Success',
          refund_reference: 're_1',
          refund_date: NOW,
          refund_processing_date: NOW,
        },
      ],
    });
    const inFlight = books({
      authorisations: [{ reference: TXN, status: 'pending', voided: false, final: false }],
      capture: { status: 'pending', amount: 5000, final: false },
      refunds: [{ reference: `${TXN}-02`, amount: 500, currency: 'USD', status: 'pending', final: false }],
    });
    expect(compareBooks(refunded, [], inFlight, NOW)).toEqual({ catchUps: [], differences: [] });
    // settled failed at the acquirer: caught up, and nothing left that differs
    const failed = books({
      capture: { status: 'succeeded', amount: 5000, final: true },
      refunds: [{ reference: `${TXN}-01`, amount: 1000, currency: 'USD', status: 'failed', final: true }],
    });
    expect(compareBooks(refunded, [], failed, NOW)).toEqual({
      catchUps: [{ act: 'refund-failed', reference: `${TXN}-01` }],
      differences: [],
    });
  });

  it('when the acquirer decided a dispute under review, then the gateway’s own decision step is waited for until it is due', () => {
    const submitted = NOW - 1_000;
    const known = { acquirer_ref: 'dp_1', status: 'under_review', evidence_submitted_at: submitted } as DisputeRecord;
    const decided = books({ disputes: [{ disputeRef: 'dp_1', reason: 'fraudulent', status: 'won', final: true }] });
    const captured = payment({ status: '3100', captured: 5000 });
    const capturedBooks = { ...decided, capture: { status: 'succeeded' as const, amount: 5000, final: true } };
    expect(compareBooks(captured, [known], capturedBooks, NOW).catchUps).toEqual([]);
    expect(compareBooks(captured, [known], capturedBooks, submitted + DECISION_DELAY_MS).catchUps).toEqual([
      { act: 'dispute', report: { disputeRef: 'dp_1', reason: 'fraudulent', status: 'won' } },
    ]);
    // one the gateway does not have at all is opened at once
    expect(compareBooks(captured, [], capturedBooks, NOW).catchUps).toHaveLength(1);
  });
});
