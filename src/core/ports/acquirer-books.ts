import type { DisputeReason } from '../records/dispute-record.js';

/**
 * What the gateway knows of a payment that an acquirer needs to find its own records of it: every acquirer
 * reference of the payment derives from its transaction id (payments/claim.ts acquirerReference).
 */
export interface PaymentReferences {
  transactionId: string;
  /** the acquirer's own object of the authorisation the payment stands on, where the gateway has it */
  connectorRef?: string;
  /** authorisation attempts made (a hosted checkout's later cards: `<transaction_id>-a2`, ...); 1 when absent */
  attempts?: number;
  /** the highest refund number sent (`<transaction_id>-NN`), refused ones included; 0 when none */
  refundsSent?: number;
}

/**
 * Whether an entry of the books is the acquirer's settled word: false while something is in flight there
 * (an intent processing, a refund pending, a request sent whose answer has not come), so it may still change
 * and tells nothing yet.
 */
export interface Settled {
  final: boolean;
}

/** One authorisation the acquirer has under the payment's references, in the acquirer's minor units. */
export interface BookAuthorisation extends Settled {
  /** the gateway's reference it was asked under (`<transaction_id>` or `<transaction_id>-aN`) */
  reference: string;
  connectorRef?: string;
  /** approved: the acquirer authorised it (it holds the amount unless voided); pending: not decided yet */
  status: 'approved' | 'declined' | 'pending';
  amount?: number;
  currency?: string;
  /** released at the acquirer (voided, cancelled): it holds nothing */
  voided: boolean;
}

/** What the acquirer captured of the payment's authorisation (the one the payment stands on). */
export interface BookCapture extends Settled {
  /** none: nothing captured; failed: a capture the acquirer took and failed later */
  status: 'none' | 'succeeded' | 'pending' | 'failed';
  /** the amount captured (0 unless succeeded or pending), in the acquirer's minor units */
  amount: number;
}

/** A refund the acquirer has on the payment. */
export interface BookRefund extends Settled {
  /** the gateway's refund_reference_id where the acquirer knows it; absent for a refund made at the acquirer directly */
  reference?: string;
  /** the acquirer's own name of the refund */
  refundRef?: string;
  amount: number;
  currency: string;
  status: 'succeeded' | 'pending' | 'failed';
}

/** A dispute the acquirer has on the payment, as it reports disputes (CardConnector AcquirerDispute). */
export interface BookDispute extends Settled {
  disputeRef: string;
  reason: DisputeReason;
  status: 'inquiry' | 'needs_response' | 'under_review' | 'won' | 'lost';
  /** in the acquirer's minor units; absent: the captured amount */
  amount?: number;
  /** the acquirer's last moment for the merchant's answer (ms), where it says one */
  dueAt?: number;
}

/**
 * The acquirer's own records of one payment's money (CardConnector.books): what reconciliation compares with
 * the gateway's. Lists are complete for what the acquirer can be asked: an empty list means none.
 */
export interface AcquirerBooks {
  /** oldest attempt first */
  authorisations: BookAuthorisation[];
  capture: BookCapture;
  refunds: BookRefund[];
  disputes: BookDispute[];
}
