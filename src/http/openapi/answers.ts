import { z } from 'zod';
import { ERROR_CODES } from '../../core/kernel/errors.js';

/**
 * The answers' shapes, for the OpenAPI document and for tests that check real answers against it. They
 * describe what core/…/answer.ts and the routers write; they never check a request.
 */
const s = (description: string) => z.string().meta({ description });
const amount = s('decimal string with two fraction digits, e.g. "10.00"');
const signature = s('64 hex characters: SHA-256 over the fields named in x-answer-signature, then sign_key');
const status01 = z.enum(['0', '1']);

const head = {
  merchant_id: z.string(),
  account_id: z.string(),
  return_status: status01.meta({ description: '1 when the call was processed, whatever its orders’ results' }),
  return_message: z.string(),
  encryption_data: signature,
};

export const paymentAnswerSchema = z
  .object({
    merchant_id: z.string(),
    account_id: z.string(),
    order_no: z.string(),
    amount,
    currency: z.string(),
    transaction_id: z.string(),
    card: s('masked card: first 6 digits, ***, last 4'),
    order_status: z.enum(['0', '1', '2']).meta({ description: '1 approved, 0 failed, 2 pending (3-D Secure or review)' }),
    result_info: s('<code>:<text>, e.g. 0000:Success'),
    contract_name: z.string(),
    recurring_id: z.string(),
    recurring_deduction_period: z.string(),
    recurring_deduction_time: s('YYYY-MM-DD hh:mm:ss'),
    note: z.string(),
    token_id: z.string(),
    connector: z.string(),
    threeds_result: z.string(),
    risk_action: z.enum(['ACCEPT', 'REVIEW', 'REJECT']),
    risk_score: z.string(),
    risk_reasons: z.array(z.object({ name: z.string(), status: z.string() })),
    issuer_url: s('only with order_status 2 and a 3-D Secure challenge: the hosted challenge page').optional(),
    encryption_data: s('upper-case hex in the respon XML document'),
  })
  .meta({ description: 'The respon XML document (root element respon), shown here as its elements', xml: { name: 'respon' } });

/**
 * docs/api.md#bodies: a refusal of /v1/authorise as a respon document (http/render/refusal.ts): order_status 0,
 * result_info `<code>:<message>`, the request's identifiers as sent, and the request id.
 */
export const refusalAnswerSchema = z
  .object({
    ...Object.fromEntries(
      ['merchant_id', 'account_id', 'order_no', 'amount', 'currency'].map((k) => [
        k,
        s('as the request sent it (the amount normalised when it could be read), or empty'),
      ]),
    ),
    transaction_id: z.literal(''),
    card: z.literal(''),
    order_status: z.literal('0'),
    result_info: s('<error code>:<message naming the field>, e.g. INVALID_FIELD:amount: must be …'),
    ...Object.fromEntries(
      ['contract_name', 'recurring_id', 'recurring_deduction_period', 'recurring_deduction_time', 'note', 'token_id', 'connector']
        .concat(['threeds_result', 'risk_action', 'risk_score'])
        .map((k) => [k, z.literal('')]),
    ),
    risk_reasons: z.array(z.never()).max(0),
    request_id: s('also in the X-Request-Id header and the logs'),
    encryption_data: s('upper-case hex signature when the caller was authenticated, else empty'),
  })
  .meta({ description: 'A refusal of /v1/authorise as a respon XML document (root element respon)', xml: { name: 'respon' } });

const orderRef = { transaction_id: z.string(), order_no: z.string(), currency: z.string(), amount };
const perOrder = (extra: Record<string, z.ZodType>) => z.array(z.object({ ...orderRef, ...extra, error_message: z.string() }));

export const captureAnswerSchema = z.object({ ...head, capture_orders: perOrder({ capture_status: status01 }) });
export const cancelAnswerSchema = z.object({ ...head, cancel_orders: perOrder({ cancel_status: status01 }) });
export const reviewAnswerSchema = z.object({ ...head, review_orders: perOrder({ review_flag: status01, review_status: status01 }) });
export const refundAnswerSchema = z.object({
  ...head,
  refund_orders: z.array(
    z.object({
      ...orderRef,
      refund_amount: amount,
      refund_reason: z.string(),
      refund_status: status01,
      refund_message: s('<code>:<text>, V0000:Success when accepted'),
      refund_reference: z.string(),
      refund_reference_id: s('<transaction_id>-<NN>'),
    }),
  ),
});

export const retrievalTransAnswerSchema = z.object({
  ...head,
  has_more: status01.optional(),
  orders_list: z.array(
    z.object({
      ...orderRef,
      payment_status: s('1000 pending … 4400 expired (docs/api.md#statuses)'),
      query_result: status01,
      reference_no: z.string(),
      transaction_date: s('YYYYMMDDhhmmss'),
      website: z.string(),
      dispute_status: z
        .enum(['', 'inquiry', 'needs_response', 'under_review', 'won', 'lost'])
        .meta({ description: 'the status of the payment’s latest dispute; empty when it has none (docs/disputes.md)' }),
    }),
  ),
  antifraud_provider: z.string(),
  fraud_check_result: z.array(z.object({ check_items: z.string(), status: z.string() })),
  is3ds: status01,
});

export const retrievalRefundAnswerSchema = z.object({
  ...head,
  has_more: status01,
  refund_orders: z.array(
    z.object({
      ...orderRef,
      refund_status: status01,
      payment_status: z.string(),
      refund_amount: amount,
      refund_reference: z.string(),
      refund_reason: z.string(),
      refund_reference_id: z.string(),
      refund_date: s('YYYYMMDDhhmmss'),
      refund_processing_date: s('YYYYMMDDhhmmss or empty'),
    }),
  ),
});

export const cancelSubscriptionAnswerSchema = z.object({
  merchant_id: z.string(),
  account_id: z.string(),
  recurring_id: z.string(),
  contract_name: z.string(),
  cancel_status: status01,
  error_message: z.string(),
  encryption_data: signature,
});

export const resendAnswerSchema = z.object({
  ...head,
  return_status: z.literal('1'),
  notifications: z.array(z.object({ notify_id: z.string(), notify_type: z.string(), order_no: z.string(), status: z.string() })),
});

export const payoutAnswerSchema = z
  .object({
    merchant_id: z.string(),
    account_id: z.string(),
    request_id: z.string(),
    amount_beneficiary_receives: z.number(),
    amount_payer_pays: z.number(),
    fee_amount: z.number(),
    fee_currency: z.string(),
    created_at: s('ISO 8601 with an offset written without a colon'),
    last_updated_at: z.string(),
    failure_reason: z.string(),
    failure_type: z.string(),
    payer_id: z.string(),
    transaction_id: z.string(),
    short_reference_id: z.string(),
    status: z.string(),
    encryption_data: signature,
  })
  .loose()
  .meta({ description: 'Every request field echoed (bank_details gains local_clearing_system, loses bank_code), then these' });

export const optimiseAnswerSchema = z.object({
  ...head,
  request_id: z.string(),
  return_status: z.literal('1'),
  payment_methods: z.array(
    z.object({
      pm_id: z.string(),
      apm_type: z.string(),
      name: z.string(),
      brands: z.array(z.string()),
      score: z.number().int().min(0).max(100),
      reasons: z.array(z.string()),
    }),
  ),
});

/** A dispute's fields (docs/disputes.md), as the dispute calls answer them and the `dispute` notification sends them. */
const disputeFields = {
  dispute_id: s('<transaction_id>-D<NN>'),
  transaction_id: z.string(),
  order_no: z.string(),
  dispute_amount: amount,
  currency: z.string(),
  dispute_reason: z.enum(['fraudulent', 'product_not_received', 'duplicate', 'subscription_canceled', 'credit_not_processed', 'general']),
  dispute_status: z.enum(['inquiry', 'needs_response', 'under_review', 'won', 'lost']),
  opened_date: s('YYYYMMDDhhmmss in GATEWAY_TIMEZONE'),
  due_date: s('YYYYMMDDhhmmss: the last moment for evidence (7 days after opening in the sandbox)'),
  closed_date: s('YYYYMMDDhhmmss, empty while open'),
  evidence_submitted_date: s('YYYYMMDDhhmmss when evidence was sent (submit 1), else empty'),
  product_description: s('evidence as last saved or sent, card numbers masked'),
  customer_communication: z.string(),
  shipping_tracking: z.string(),
  uncategorized_text: z.string(),
};

/** /v1/retrievalDispute: the disputes found, newest first. */
export const retrievalDisputeAnswerSchema = z.object({ ...head, has_more: status01, dispute_orders: z.array(z.object(disputeFields)) });

/** /v1/disputeEvidence and /v1/disputeAccept: return_status 0 with return_message saying why for a refusal. */
export const disputeCallAnswerSchema = z.object({
  ...head,
  ...Object.fromEntries(Object.entries(disputeFields).map(([k, v]) => [k, k === 'dispute_id' ? v : v.optional()])),
});

/** /v1/retrievalCards (docs/checkout.md#saved-cards-for-returning-shoppers): a shopper's saved cards, newest first (expired ones too). */
export const retrievalCardsAnswerSchema = z.object({
  ...head,
  return_status: z.literal('1'),
  shopper_id: z.string(),
  cards: z.array(
    z.object({
      card_id: s('names the card in /v1/deleteCard'),
      brand: s('VISA, MASTERCARD, AMEX, DISCOVER, DINERS, JCB, UNIONPAY, MAESTRO'),
      card_last4: s('the last 4 digits'),
      expiry: s('MM/YYYY'),
      created_date: s('YYYYMMDDhhmmss in GATEWAY_TIMEZONE: when the shopper saved it'),
    }),
  ),
});

/** /v1/deleteCard (docs/checkout.md#saved-cards-for-returning-shoppers): the card removed. */
export const deleteCardAnswerSchema = z.object({
  ...head,
  return_status: z.literal('1'),
  shopper_id: z.string(),
  card_id: z.string(),
});

export const checkoutJsonAnswerSchema = z.object({
  checkout_url: s('GET address of the hosted card page (an iFrame src)'),
  expires_at: s('ISO 8601 time the session expires'),
});

export const errorSchema = z.object({
  code: z.enum(Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]]),
  message: s('names the field at fault'),
  field: z.string().optional(),
  return_status: z.literal('0').optional().meta({ description: 'on calls whose answers carry return_status' }),
  request_id: s('also in the X-Request-Id header and the logs'),
});

/** GET /healthz and GET /readyz. */
export const healthAnswerSchema = z.object({ status: z.literal('ok') });
export const readyAnswerSchema = z.object({ status: z.literal('ready') });
export const notReadyAnswerSchema = z.object({
  status: z.enum(['shutting down', 'store unavailable', 'store refuses writes', 'event loop lagging']),
  /** with `event loop lagging`: the 99th percentile of the event loop's delay since the previous probe */
  lag_ms: z.number().int().optional(),
});

/** GET /.well-known/payment-page-scripts.json: every script and stylesheet of the hosted pages with its hash. */
export const scriptInventorySchema = z.object({
  base_url: z.string(),
  algorithm: z.literal('sha384'),
  scripts: z.array(
    z.object({
      path: s('absolute path on the gateway, e.g. /public/card.js'),
      type: z.enum(['script', 'style']),
      hash: s('sha384-<base64>, the integrity value the pages carry'),
      purpose: z.string(),
    }),
  ),
});

/** GET /openapi.json: this document (its outline; the OpenAPI 3.1 schema says the rest). */
export const openApiAnswerSchema = z
  .object({
    openapi: z.literal('3.1.0'),
    info: z.object({ title: z.string(), version: z.string() }).loose(),
    paths: z.record(z.string(), z.unknown()),
  })
  .loose();

/** A test clock as the clock calls answer it (docs/test-clocks.md). */
const testClockFields = {
  test_clock_id: z.string(),
  name: z.string(),
  frozen_time: s('the clock’s time, YYYYMMDDhhmmss in GATEWAY_TIMEZONE'),
  clock_status: z.enum(['ready', 'advancing']).meta({ description: 'advancing while an advance runs its due steps; then ready' }),
};

export const testClockAnswerSchema = z.object({ ...head, ...testClockFields });

export const retrievalTestClockAnswerSchema = z.object({ ...head, test_clocks: z.array(z.object(testClockFields)) });
