// A leaf file (imports nothing of the core), so that ports/store.ts can name the record without a circle.

export type NotifyType =
  | 'payment'
  | 'threeds'
  | 'review'
  | 'capture'
  | 'cancel'
  | 'refund'
  | 'expire'
  | 'subscription_charge'
  | 'subscription_cancel'
  | 'payout'
  | 'test_clock'
  | 'dispute';

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
  /** the latest delivery attempts (at most 20), oldest first: when, the HTTP status if any, the error if it failed */
  tries?: { at: number; status?: number; error?: string }[];
  /** attempts made before the last resend (the back-off counts only later ones) */
  round_start_attempts?: number;
}
