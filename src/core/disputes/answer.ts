import { formatAmount } from '../kernel/money.js';
import { compactDate } from '../kernel/dates.js';
import { EVIDENCE_FIELDS, type DisputeRecord } from '../records/dispute-record.js';

/**
 * The dispute's fields as answers, notifications and the search write them (docs/disputes.md): amounts with two
 * fraction digits, dates `YYYYMMDDhhmmss` in the gateway's zone, '' for a date not reached.
 */
export function disputeFields(d: DisputeRecord, timezone: string): Record<string, string> {
  const fields: Record<string, string> = {
    dispute_id: d.dispute_id,
    transaction_id: d.transaction_id,
    order_no: d.order_no,
    dispute_amount: formatAmount(d.amount),
    currency: d.currency,
    dispute_reason: d.reason,
    dispute_status: d.status,
    opened_date: compactDate(d.opened_at, timezone),
    due_date: compactDate(d.due_at, timezone),
    closed_date: d.closed_at === null ? '' : compactDate(d.closed_at, timezone),
    evidence_submitted_date: d.evidence_submitted_at === null ? '' : compactDate(d.evidence_submitted_at, timezone),
  };
  for (const f of EVIDENCE_FIELDS) fields[f] = d.evidence[f];
  return fields;
}
