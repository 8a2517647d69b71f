// The dispute record (DESIGN 13): a leaf file that imports only kernel/, so that ports/store.ts and the
// payment record can name it without an import circle (docs/architecture.md).
import type { Minor } from '../kernel/money.js';

/** dispute_reason values of DESIGN 13. */
export const DISPUTE_REASONS = [
  'fraudulent',
  'product_not_received',
  'duplicate',
  'subscription_canceled',
  'credit_not_processed',
  'general',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

/** dispute_status values of DESIGN 13; `won` and `lost` are closed. */
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

/** Why a dispute moved: the one who moved it, for its story (portal) and its notification. */
export type DisputeCause = 'opened' | 'escalated' | 'evidence' | 'accepted' | 'deadline' | 'decided';

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
   * The merchant's evidence or acceptance as it was sent to the acquirer, recorded before it was sent and kept
   * while its outcome is not recorded: an answer the acquirer may have taken. The deadline then sends it again
   * under its reference (the acquirer answers its first result) instead of closing the dispute as unanswered
   * (disputes/steps.ts).
   */
  sending?: { act: 'evidence' | 'accept'; at: number; evidence?: DisputeEvidence };
  /** the acquirer's own name of the dispute, for the connector's evidence and accept calls */
  acquirer_ref: string;
  /** the fee debited with the amount when it opened (hundredths) */
  fee: Minor;
  /** every status change, oldest first (the first is the opening: from '') */
  history: { at: number; from: DisputeStatus | ''; to: DisputeStatus; cause: DisputeCause }[];
}

/** What the payment record keeps of each of its disputes: refunds and the query read it without another look-up. */
export interface DisputeSummary {
  dispute_id: string;
  status: DisputeStatus;
}
