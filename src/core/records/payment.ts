// The payment record and its parts: a leaf file that imports only kernel/ and other record files, so that
// ports/store.ts can name it without an import circle (docs/architecture.md).
import type { Minor } from '../kernel/money.js';
import type { CardSummary } from '../kernel/cards.js';
import type { SubscriptionTerms } from './contract-record.js';
import type { DisputeSummary } from './dispute-record.js';

export type { CardSummary };

/** payment_status values of docs/api.md#statuses. */
export const PaymentStatus = {
  PENDING: '1000',
  HELD: '2000',
  AUTHORISED: '3000',
  CAPTURED: '3100',
  PARTLY_REFUNDED: '3200',
  REFUNDED: '3300',
  DECLINED: '4000',
  CANCELLED: '4100',
  REJECTED: '4200',
  THREEDS_FAILED: '4300',
  EXPIRED: '4400',
} as const;
export type PaymentStatus = (typeof PaymentStatus)[keyof typeof PaymentStatus];

export type OrderStatus = '0' | '1' | '2';

export interface RiskCheck {
  name: string;
  status: 'ACCEPT' | 'REVIEW' | 'REJECT';
}

export interface RiskAssessment {
  action: 'ACCEPT' | 'REVIEW' | 'REJECT';
  score: number;
  checks: RiskCheck[];
}

export interface ThreeDSInfo {
  /** do3DS or no3DS as requested */
  mode: string;
  /** true while a challenge waits for the shopper */
  challenge_pending: boolean;
  /** text result recorded for the transaction (threeds_result) */
  result: string;
  /** secret part of issuer_url: only the holder of the address can answer the challenge */
  challenge_secret?: string;
  /**
   * the acquirer's own challenge page (Stripe, Adyen): the hosted challenge page hands the shopper to it, and the
   * acquirer sends them back to the challenge's return address (issuer_url + `/return`)
   */
  acquirer_url?: string;
}

export interface RefundRecord {
  refund_reference_id: string;
  refund_amount: Minor;
  refund_reason: string;
  refund_status: '1' | '0';
  refund_message: string;
  refund_reference: string;
  refund_date: number;
  refund_processing_date: number | null;
}

/** Fields a payment gains after it is made (moveTo's changes, claims): see withLaterFields. */
const LATER_FIELDS = ['connector_ref', 'recurring_id', 'auth_expires_at', 'claim', 'written_by', 'history', 'counted'] as const;

/**
 * The payment with its later fields present (undefined when unset), so it keeps one shape for its life.
 * V8 copies a spread of a payment cheaply (0.3 µs) while it only overwrites fields, but gives a copy that
 * adds a field a new hidden class, 5 to 8 µs for a payment's 40 fields; flows copy a payment with a new
 * claim or outcome several times a call. JSON leaves undefined fields out: what is stored is the same.
 */
export function withLaterFields(p: Payment): Payment {
  const open = p as unknown as Record<string, unknown>;
  for (const field of LATER_FIELDS) if (!(field in open)) open[field] = undefined;
  return p;
}

/** A payment (transaction) as stored. `version` is the store's optimistic-lock counter. */
export interface Payment {
  version: number;
  transaction_id: string;
  merchant_id: string;
  account_id: string;
  order_no: string;
  currency: string;
  amount: Minor;
  status: PaymentStatus;
  result_code: string;
  /** HMAC of the request that created it: the same order_no with other content is refused */
  fingerprint: string;
  source: 'direct' | 'checkout' | 'recurring';
  card?: CardSummary;
  token_id?: string;
  /** vault token used to charge (the request's token_id, or the one made for token_flag/subscription) */
  vault_token?: string;
  /** true when this payment put the card in the vault (dropped again if the payment fails) */
  vault_created?: boolean;
  /**
   * the shopper asked on the hosted page to save this card (docs/checkout.md#saved-cards-for-returning-shoppers): a vault token of its own, made with the
   * payment; the saved card is recorded when the payment is approved, the token dropped when it fails
   */
  save_card?: { shopper_id: string; token: string; card_id?: string; card_hash?: string };
  /** the subscription block, kept until the payment is approved and the contract made */
  subscription?: SubscriptionTerms;
  threeds: ThreeDSInfo;
  risk: RiskAssessment;
  connector: string;
  connector_ref?: string;
  captured: Minor;
  refunded: Minor;
  refunds: RefundRecord[];
  /**
   * the highest refund number sent to the acquirer, refused ones included: a number once sent is never sent
   * again (a reused reference with another amount would be answered, or refused, as the first request)
   */
  refunds_sent?: number;
  /**
   * declined because the acquirer never saw the authorisation (its process died, or the store failed, before
   * the request reached it): nothing was charged, and the merchant's retry of the same order re-opens it
   */
  never_sent?: true;
  /**
   * the authorisation attempt the payment stands at: absent for the first; 2, 3, ... when the shopper of a hosted
   * checkout tried another card after a decline (authorisation/retry.ts), each under references of its own
   */
  attempt?: number;
  note: string;
  website: string;
  notify_url: string;
  /** the shopper's return address (checkout, or appended to issuer_url) */
  return_url?: string;
  shopper_email: string;
  /** the order's billing_country, for the approval rates by country (/v1/optimise) */
  billing_country?: string;
  recurring_id?: string;
  created_at: number;
  updated_at: number;
  /** when an authorisation not captured by then expires */
  auth_expires_at?: number;
  /** set while one flow (authorise, capture, cancel, ...) holds the payment at the acquirer (claim.ts) */
  claim?: PaymentClaim;
  /** the mark of the last outcome commit (claim.ts), to recognise a commit whose answer was lost */
  written_by?: string;
  /** every status change made by the transition table, oldest first */
  history?: { at: number; from: PaymentStatus; to: PaymentStatus }[];
  /**
   * the portal home's figures of this payment as last written, set by the store (home/day-figures-record.ts):
   * `at` the version that write gave it, `days` its counts by day
   */
  counted?: { at: number; days: Record<string, number[]> };
  /** its disputes (docs/disputes.md), oldest first, each with its status: refunds are refused while one is open */
  disputes?: DisputeSummary[];
  /** extra per-source data (checkout session id, contract charge number, ...) */
  meta?: Record<string, string>;
  /** 3-D Secure 2 browser data of the hosted card page (never card data) */
  device?: BrowserInfo;
}

/** order_status seen by merchants for each payment status. */
export function orderStatusOf(status: PaymentStatus): OrderStatus {
  switch (status) {
    case PaymentStatus.PENDING:
    case PaymentStatus.HELD:
      return '2';
    case PaymentStatus.AUTHORISED:
    case PaymentStatus.CAPTURED:
    case PaymentStatus.PARTLY_REFUNDED:
    case PaymentStatus.REFUNDED:
      return '1';
    default:
      return '0';
  }
}

export function isFinal(status: PaymentStatus): boolean {
  return status !== PaymentStatus.PENDING;
}

/**
 * EMV 3-D Secure 2 browser data the hosted card page collects (the browser channel's device data), passed
 * to the acquirer with the authorisation so the issuer can decide on a frictionless flow.
 */
export interface BrowserInfo {
  screen_width?: number;
  screen_height?: number;
  color_depth?: number;
  /** minutes, as JavaScript's Date.getTimezoneOffset() (UTC minus local time) */
  tz_offset?: number;
  language?: string;
  java_enabled: boolean;
  javascript_enabled: boolean;
  /** the browser's User-Agent and Accept headers, as the card page's request carried them */
  user_agent?: string;
  accept_header?: string;
}

export type ClaimOp = 'authorise' | 'challenge' | 'challenge_expiry' | 'charge' | 'review' | 'capture' | 'cancel' | 'refund' | 'expire';

export interface PaymentClaim {
  id: string;
  op: ClaimOp;
  /** the acquirer reference of the operation (acquirerReference) */
  reference: string;
  /** minor units moved by the operation, where it moves an amount */
  amount?: number;
  /** the operation's plan, so that another process can finish it */
  plan?: unknown;
  at: number;
  /** after this the claim is stale: the recovery job (or the next flow) resumes it */
  until: number;
  /**
   * set when recovery found an authorisation the acquirer never saw and gave the merchant's retry of the order
   * (which carries the card again) a last window to take it over before recording it as failed
   */
  grace?: true;
  /**
   * set when the acquirer answered that it took the authorisation and decides later (a pending outcome): no
   * process acts under the claim any more, so the acquirer's webhook settles it at once, and recovery reads the
   * acquirer's status at `until`, further apart the longer it waits (settle.ts)
   */
  awaiting?: true;
}
