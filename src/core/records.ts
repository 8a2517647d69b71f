import type { SubscriptionTerms } from './subscriptions.js';
import type { Minor } from './money.js';
import type { CardSummary } from './payment.js';

/** A card in the vault: the number only encrypted (AES-256-GCM), beside what may be shown of it. */
export interface VaultRecord {
  token: string;
  merchant_id: string;
  account_id: string;
  /** base64 of iv (12 bytes) + auth tag (16 bytes) + ciphertext of the card number */
  sealed: string;
  card: CardSummary;
  created_at: number;
}

export type ContractStatus = 'Active' | 'Inactived' | 'Suspended' | 'Completed';
export type ContractInterval = 'day' | 'week' | 'month' | 'year';

/** A scheduled charge: payment `transaction_id` for period `number`, attempt `attempt` (0 = first try). */
export interface ContractCharge {
  transaction_id: string;
  number: number;
  attempt: number;
  due_at: number;
}

/**
 * A recurring contract created by a payment's subscription block: the block's terms (contract_amount, in
 * minor units, is the amount of the charges after the promotion) plus the schedule's state.
 */
export interface Contract extends SubscriptionTerms {
  version: number;
  recurring_id: string;
  merchant_id: string;
  account_id: string;
  currency: string;
  /** amount of the first promotion_cycle charges (the payment's amount) */
  promotion_amount: Minor;
  vault_token: string;
  status: ContractStatus;
  /** charges made so far, the first payment included */
  charges_made: number;
  /** when the next charge is due (epoch ms); null when none is left */
  next_charge_at: number | null;
  /** failed charges of the current period (retried on the schedule of DESIGN/docs, then Suspended) */
  failed_attempts: number;
  /** the charge created ahead of its due time for the current period (a pending recurring payment) */
  pending_charge?: ContractCharge;
  /** while one process executes the pending charge */
  charge_lease_until?: number;
  cancelled_at?: number;
  origin_transaction_id: string;
  order_no: string;
  notify_url: string;
  created_at: number;
  updated_at: number;
}

export type NotifyType =
  'payment' | 'threeds' | 'review' | 'capture' | 'cancel' | 'refund' | 'expire' | 'subscription_charge' | 'subscription_cancel' | 'payout';

/** A notification waiting for delivery (the outbox); written in the same atomic step as the outcome. */
export interface OutboxRecord {
  version: number;
  notify_id: string;
  merchant_id: string;
  account_id: string;
  notify_type: NotifyType;
  notify_url: string;
  /** the form fields to send, signature included */
  fields: Record<string, string>;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  created_at: number;
  next_attempt_at: number;
  /** while a delivery worker holds it: other processes leave it alone until then */
  lease_until?: number;
  last_error?: string;
  delivered_at?: number;
  /** set by a resend: the retry window and the back-off start again from here */
  retry_from?: number;
  /** attempts made before the last resend (the back-off counts only later ones) */
  round_start_attempts?: number;
}

/** What the gateway keeps of an Idempotency-Key: the request's keyed hash and, once done, its answer. */
export interface IdempotencyRecord {
  version: number;
  /** keyed hash of the path and body of the first request */
  request_hash: string;
  status: 'running' | 'done';
  /** while running: when another request may take the key over (the first one's process died) */
  lease_until: number;
  created_at: number;
  answer?: { status: number; content_type: string; body: string };
}
