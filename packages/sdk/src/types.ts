/**
 * The calls' fields as the interface names them. Amounts are decimal strings ("10.00"). Requests list the
 * fields a merchant usually sends; any other field of the interface may be added (the index signature).
 * merchant_id, account_id and encryption_data are filled in by the client.
 */
type Extra = Record<string, unknown>;

export interface OrderRequest extends Extra {
  order_no: string;
  currency: string;
  amount: string;
  first_name?: string;
  last_name?: string;
  shopper_email?: string;
  notify_url?: string;
  billing_country?: string;
  open3d?: 'do3DS' | 'no3DS';
  token_flag?: 'YES' | 'NO';
  token_id?: string;
  subscription?: Extra;
}

export interface AuthoriseRequest extends OrderRequest {
  card?: string;
  expiration_month?: string;
  expiration_year?: string;
  security_code?: string;
  return_url?: string;
}

export interface CheckoutRequest extends OrderRequest {
  return_url?: string;
  cancel_url?: string;
  default_lang?: string;
  /** the merchant's own id of a returning shopper: its saved cards are offered on the card page */
  shopper_id?: string;
  /** proves shopper_id (shopperSignature); the client fills it in when shopper_id is given without it */
  shopper_signature?: string;
}

export interface OrderRef {
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
}

export type CaptureOrder = OrderRef;
export type CancelOrder = OrderRef;
export interface ReviewOrder extends OrderRef {
  review_flag: '0' | '1';
}
export interface RefundOrder extends OrderRef {
  refund_amount: string;
  refund_reason?: string;
}

export interface RetrievalTransRequest extends Extra {
  order_no?: string | string[];
  transaction_id?: string | string[];
  start_date?: string;
  end_date?: string;
}

export interface RetrievalRefundRequest extends Extra {
  transaction_id?: string | string[];
  order_no?: string | string[];
  refund_reference_id?: string | string[];
  start_date?: string;
  end_date?: string;
}

export interface CancelSubscriptionRequest extends Extra {
  recurring_id: string;
  contract_name?: string;
}

export interface ResendRequest extends Extra {
  notify_id?: string;
  order_no?: string;
}

export interface PayoutRequest extends Extra {
  request_id: string;
  payment_amount?: string;
  payment_currency: string;
  source_amount?: string;
  source_currency: string;
  beneficiary: Extra;
  payer: Extra;
}

export interface PayoutQueryRequest extends Extra {
  request_id?: string;
  transaction_id?: string;
}

export interface OptimiseRequest extends Extra {
  request_id: string;
  currency: string;
  amount: string;
  billing_country: string;
  shopper_email?: string;
  card_bin?: string;
}

/** A shopper's saved cards (the shopper_id the checkout named). */
export interface RetrievalCardsRequest extends Extra {
  shopper_id: string;
}

/** Removes one of a shopper's saved cards. */
export interface DeleteCardRequest extends Extra {
  shopper_id: string;
  card_id: string;
}

interface Signed {
  merchant_id: string;
  account_id: string;
  encryption_data: string;
}

interface Processed extends Signed {
  return_status: '0' | '1';
  return_message: string;
}

/** The respon document of /v1/authorise, as its element texts. */
export interface PaymentAnswer extends Signed {
  order_no: string;
  amount: string;
  currency: string;
  transaction_id: string;
  card: string;
  order_status: '0' | '1' | '2';
  result_info: string;
  contract_name: string;
  recurring_id: string;
  recurring_deduction_period: string;
  recurring_deduction_time: string;
  note: string;
  token_id: string;
  connector: string;
  threeds_result: string;
  risk_action: 'ACCEPT' | 'REVIEW' | 'REJECT';
  risk_score: string;
  risk_reasons: { name: string; status: string }[];
  issuer_url?: string;
}

export interface CheckoutAnswer {
  checkout_url: string;
  expires_at: string;
}

type Rows<X> = (OrderRef & X & { error_message: string })[];

export interface CaptureAnswer extends Processed {
  capture_orders: Rows<{ capture_status: '0' | '1' }>;
}
export interface CancelAnswer extends Processed {
  cancel_orders: Rows<{ cancel_status: '0' | '1' }>;
}
export interface ReviewAnswer extends Processed {
  review_orders: Rows<{ review_flag: string; review_status: '0' | '1' }>;
}
export interface RefundAnswer extends Processed {
  refund_orders: (OrderRef & {
    refund_amount: string;
    refund_reason: string;
    refund_status: '0' | '1';
    refund_message: string;
    refund_reference: string;
    refund_reference_id: string;
  })[];
}

export interface RetrievalTransAnswer extends Processed {
  has_more?: '0' | '1';
  orders_list: (OrderRef & {
    payment_status: string;
    query_result: '0' | '1';
    reference_no: string;
    transaction_date: string;
    website: string;
  })[];
  antifraud_provider: string;
  fraud_check_result: { check_items: string; status: string }[];
  is3ds: string;
}

export interface RetrievalRefundAnswer extends Processed {
  has_more: '0' | '1';
  refund_orders: Record<string, string>[];
}

export interface CancelSubscriptionAnswer extends Signed {
  recurring_id: string;
  contract_name: string;
  cancel_status: '0' | '1';
  error_message: string;
}

export interface ResendAnswer extends Processed {
  notifications: { notify_id: string; notify_type: string; order_no: string; status: string }[];
}

export interface PayoutAnswer extends Signed, Extra {
  request_id: string;
  transaction_id: string;
  status: string;
  failure_reason: string;
  failure_type: string;
  amount_beneficiary_receives: number;
  amount_payer_pays: number;
  fee_amount: number;
  fee_currency: string;
}

export interface OptimiseAnswer extends Processed {
  request_id: string;
  payment_methods: { pm_id: string; apm_type: string; name: string; brands: string[]; score: number; reasons: string[] }[];
}

/** A shopper's saved cards, newest first (expired ones too): never the number. */
export interface RetrievalCardsAnswer extends Processed {
  shopper_id: string;
  cards: { card_id: string; brand: string; card_last4: string; expiry: string; created_date: string }[];
}

export interface DeleteCardAnswer extends Processed {
  shopper_id: string;
  card_id: string;
}

/** /v1/retrievalDispute: lists (comma-separated or arrays) and/or opening dates (YYYYMMDDhhmmss). */
export interface RetrievalDisputeRequest extends Extra {
  transaction_id?: string | string[];
  order_no?: string | string[];
  dispute_id?: string | string[];
  start_date?: string;
  end_date?: string;
}

/** The evidence fields of a dispute, each at most 20,000 characters. */
export interface DisputeEvidence {
  product_description?: string;
  customer_communication?: string;
  shipping_tracking?: string;
  uncategorized_text?: string;
}

/** /v1/disputeEvidence: `submit` '1' sends the evidence (under_review), '0' keeps a draft. */
export interface DisputeEvidenceRequest extends DisputeEvidence, Extra {
  dispute_id: string;
  submit: '0' | '1';
}

export interface DisputeAcceptRequest extends Extra {
  dispute_id: string;
}

export type DisputeStatus = 'inquiry' | 'needs_response' | 'under_review' | 'won' | 'lost';

/** A dispute (chargeback) as the gateway answers and notifies it. */
export interface Dispute extends Required<DisputeEvidence> {
  dispute_id: string;
  transaction_id: string;
  order_no: string;
  dispute_amount: string;
  currency: string;
  dispute_reason: 'fraudulent' | 'product_not_received' | 'duplicate' | 'subscription_canceled' | 'credit_not_processed' | 'general';
  dispute_status: DisputeStatus;
  opened_date: string;
  due_date: string;
  closed_date: string;
  evidence_submitted_date: string;
}

export interface RetrievalDisputeAnswer extends Processed {
  has_more: '0' | '1';
  dispute_orders: Dispute[];
}

/** return_status '0' is a refusal (a closed dispute, evidence after due_date): return_message says why. */
export interface DisputeCallAnswer extends Processed, Partial<Dispute> {
  dispute_id: string;
}

/** A JSON error body of the gateway: a stable code and a message naming the field. */
export interface ErrorBody {
  code: string;
  message: string;
  field?: string;
  return_status?: '0';
  request_id?: string;
}

/** /v1/testClock (sandbox accounts only): a clock at frozen_time (YYYYMMDDhhmmss); idempotent on request_id. */
export interface TestClockRequest extends Extra {
  request_id: string;
  frozen_time: string;
  name?: string;
  /** receives the clock's test_clock notification each time an advance ends */
  notify_url?: string;
}

/** /v1/testClockAdvance: frozen_time later than the clock's. */
export interface TestClockAdvanceRequest extends Extra {
  test_clock_id: string;
  frozen_time: string;
}

export interface RetrievalTestClockRequest extends Extra {
  test_clock_id?: string;
}

export interface TestClockDeleteRequest extends Extra {
  test_clock_id: string;
}

export type ClockStatus = 'ready' | 'advancing';

/** A test clock: its time (YYYYMMDDhhmmss) and whether an advance is running. */
export interface TestClock {
  test_clock_id: string;
  name: string;
  frozen_time: string;
  clock_status: ClockStatus;
}

export interface TestClockAnswer extends Processed, TestClock {}

export interface RetrievalTestClockAnswer extends Processed {
  test_clocks: TestClock[];
}
