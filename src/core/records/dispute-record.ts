// The dispute record (docs/disputes.md): a leaf file that imports only kernel/, so that ports/store.ts and the
// payment record can name it without an import circle (docs/architecture.md).
import type { Minor } from '../kernel/money.js';

/** dispute_reason values of docs/disputes.md. */
export const DISPUTE_REASONS = [
  'fraudulent',
  'product_not_received',
  'duplicate',
  'subscription_canceled',
  'credit_not_processed',
  'general',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

/** dispute_status values of docs/disputes.md; `won` and `lost` are closed. */
export const DISPUTE_STATUSES = ['inquiry', 'needs_response', 'under_review', 'won', 'lost'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** Open: evidence or acceptance may still change it, and its payment cannot be refunded. */
export const isOpenDispute = (status: DisputeStatus): boolean => status !== 'won' && status !== 'lost';

/** The four evidence fields of /v1/disputeEvidence, each at most 20,000 characters ('' when not sent). */
export const EVIDENCE_FIELDS = ['product_description', 'customer_communication', 'shipping_tracking', 'uncategorized_text'] as const;
export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];
export type DisputeEvidence = Record<EvidenceField, string>;
export const EVIDENCE_MAX_CHARS = 20_000;

export const emptyEvidence = (): DisputeEvidence => ({
  product_description: '',
  customer_communication: '',
  shipping_tracking: '',
  uncategorized_text: '',
});

/**
 * Why a dispute moved: the one who moved it, for its story (portal) and its notification. `deadline` is only in
 * the story of disputes the gateway's own deadline closed before the acquirer decided them: no move has it now.
 */
export type DisputeCause = 'opened' | 'escalated' | 'evidence' | 'accepted' | 'deadline' | 'decided';

/**
 * An answer the merchant sent to the acquirer: evidence or an acceptance, when it was sent, and for evidence
 * the text sent and its number among the dispute's different evidence sent (`n`, from 1): each different text
 * goes under a reference of its own (disputeReference), so sending other evidence never reuses the reference
 * of an earlier text the acquirer may have taken.
 */
export interface SentAnswer {
  act: 'evidence' | 'accept';
  at: number;
  n?: number;
  evidence?: DisputeEvidence;
}

/** The answers a dispute records as sent with their outcome unknown, oldest first (a record's former `sending` too). */
export function answersSent(d: Pick<DisputeRecord, 'sent' | 'sending'>): SentAnswer[] {
  if (d.sent) return d.sent;
  return d.sending ? [{ ...d.sending, ...(d.sending.act === 'evidence' ? { n: 1 } : {}) }] : [];
}

/** A dispute as stored. `version` is the store's optimistic-lock counter. */
export interface DisputeRecord {
  version: number;
  /** `<transaction_id>-D<NN>`, NN from 01 per payment */
  dispute_id: string;
  merchant_id: string;
  account_id: string;
  transaction_id: string;
  order_no: string;
  /** hundredths, like every amount inside the gateway */
  amount: Minor;
  currency: string;
  reason: DisputeReason;
  status: DisputeStatus;
  opened_at: number;
  /** the last moment for evidence */
  due_at: number;
  closed_at: number | null;
  /** the latest evidence saved or sent */
  evidence: DisputeEvidence;
  /** when evidence was sent (submit 1); null while only a draft (or nothing) is kept */
  evidence_submitted_at: number | null;
  /**
   * The merchant's answers sent to the acquirer whose outcome is not known, oldest first (at most ten): each
   * recorded before it was sent (as a payment's claim is before its acquirer is asked) and kept until the
   * dispute moves or the acquirer refuses it, since the acquirer may have taken it. The deadline, and a later
   * answer the acquirer refuses, send them again under their own references (the acquirer answers each its
   * first result) instead of closing the dispute as unanswered (disputes/respond.ts, disputes/steps.ts).
   */
  sent?: SentAnswer[];
  /** the one answer a record written before `sent` kept (read as `sent`'s only entry: answersSent) */
  sending?: { act: 'evidence' | 'accept'; at: number; evidence?: DisputeEvidence };
  /** the acquirer's own name of the dispute, for the connector's evidence and accept calls */
  acquirer_ref: string;
  /** the fee debited with the amount when it opened (hundredths) */
  fee: Minor;
  /**
   * The latest place in the dispute's story at the acquirer that a report of it has given (AcquirerDispute's
   * `order`): a report from earlier in that story, delivered after a later one, changes nothing.
   */
  acquirer_order?: number;
  /** every status change, oldest first (the first is the opening: from '') */
  history: { at: number; from: DisputeStatus | ''; to: DisputeStatus; cause: DisputeCause }[];
}

/** What the payment record keeps of each of its disputes: refunds and the query read it without another look-up. */
export interface DisputeSummary {
  dispute_id: string;
  status: DisputeStatus;
  /** the disputed amount (hundredths): what a lost dispute took back, which cannot be refunded too */
  amount?: Minor;
}
