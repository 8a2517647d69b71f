import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** A /v1 call the SDK knows, by its path after /v1/. */
export type Endpoint =
  | 'authorise'
  | 'checkout'
  | 'capture'
  | 'cancel'
  | 'review'
  | 'refund'
  | 'retrievalTrans'
  | 'retrievalRefund'
  | 'cancelsubscription'
  | 'notifications/resend'
  | 'payout'
  | 'payout/query'
  | 'optimise'
  | 'retrievalCards'
  | 'deleteCard'
  | 'retrievalDispute'
  | 'disputeEvidence'
  | 'disputeAccept'
  | 'testClock'
  | 'testClockAdvance'
  | 'retrievalTestClock'
  | 'testClockDelete';

export const ENDPOINTS: readonly Endpoint[] = [
  'authorise',
  'checkout',
  'capture',
  'cancel',
  'review',
  'refund',
  'retrievalTrans',
  'retrievalRefund',
  'cancelsubscription',
  'notifications/resend',
  'payout',
  'payout/query',
  'optimise',
  'retrievalCards',
  'deleteCard',
  'retrievalDispute',
  'disputeEvidence',
  'disputeAccept',
  'testClock',
  'testClockAdvance',
  'retrievalTestClock',
  'testClockDelete',
];

/** The batch calls sign merchant_id, account_id, then every transaction_id of this array in order. */
export const BATCH_ARRAYS: Partial<Record<Endpoint, string>> = {
  capture: 'capture_orders',
  cancel: 'cancel_orders',
  review: 'review_orders',
  refund: 'refund_orders',
};

/** Fields each request signs, in order, then sign_key (docs/api.md#signatures). */
export const REQUEST_FIELDS: Record<Endpoint, readonly string[]> = {
  authorise: [
    'merchant_id',
    'account_id',
    'order_no',
    'currency',
    'amount',
    'first_name',
    'last_name',
    'card',
    'expiration_year',
    'expiration_month',
    'security_code',
    'shopper_email',
  ],
  checkout: ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'first_name', 'last_name', 'shopper_email'],
  capture: ['merchant_id', 'account_id'],
  cancel: ['merchant_id', 'account_id'],
  review: ['merchant_id', 'account_id'],
  refund: ['merchant_id', 'account_id'],
  retrievalTrans: ['merchant_id', 'account_id'],
  retrievalRefund: ['merchant_id', 'account_id'],
  cancelsubscription: ['merchant_id', 'account_id', 'recurring_id'],
  'notifications/resend': ['merchant_id', 'account_id', 'notify_id', 'order_no'],
  payout: ['merchant_id', 'account_id', 'request_id', 'payment_currency', 'payment_amount'],
  'payout/query': ['merchant_id', 'account_id', 'request_id', 'transaction_id'],
  optimise: ['merchant_id', 'account_id', 'request_id', 'currency', 'amount', 'shopper_email'],
  retrievalCards: ['merchant_id', 'account_id', 'shopper_id'],
  deleteCard: ['merchant_id', 'account_id', 'shopper_id', 'card_id'],
  retrievalDispute: ['merchant_id', 'account_id'],
  disputeEvidence: ['merchant_id', 'account_id', 'dispute_id'],
  disputeAccept: ['merchant_id', 'account_id', 'dispute_id'],
  testClock: ['merchant_id', 'account_id', 'request_id'],
  testClockAdvance: ['merchant_id', 'account_id', 'test_clock_id', 'frozen_time'],
  retrievalTestClock: ['merchant_id', 'account_id'],
  testClockDelete: ['merchant_id', 'account_id', 'test_clock_id'],
};

const PAYMENT = ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'order_status'] as const;
const BATCH = ['merchant_id', 'account_id', 'return_status'] as const;

/** Fields the gateway signs in each answer (the checkout JSON answer carries no signature). */
export const ANSWER_FIELDS: Record<Endpoint, readonly string[]> = {
  authorise: PAYMENT,
  checkout: [],
  capture: BATCH,
  cancel: BATCH,
  review: BATCH,
  refund: BATCH,
  retrievalTrans: BATCH,
  retrievalRefund: BATCH,
  cancelsubscription: ['merchant_id', 'account_id', 'recurring_id', 'cancel_status'],
  'notifications/resend': BATCH,
  payout: ['merchant_id', 'account_id', 'request_id', 'status'],
  'payout/query': ['merchant_id', 'account_id', 'request_id', 'status'],
  optimise: BATCH,
  retrievalCards: BATCH,
  deleteCard: BATCH,
  retrievalDispute: BATCH,
  disputeEvidence: BATCH,
  disputeAccept: BATCH,
  testClock: BATCH,
  testClockAdvance: BATCH,
  retrievalTestClock: BATCH,
  testClockDelete: BATCH,
};

export const NOTIFICATION_FIELDS = ['merchant_id', 'account_id', 'notify_type', 'notify_id', 'order_no'] as const;
export const RETURN_FIELDS = PAYMENT;

/**
 * The two forms of docs/api.md#signatures: the gateway's own (`spaces-removed`, every U+0020 dropped from each value) and
 * the one some existing integrations use (`as-sent`, values kept as they are). The gateway accepts both.
 */
export type SignatureForm = 'spaces-removed' | 'as-sent';

function valueText(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Lower-case hex SHA-256 of the values, concatenated with no separator, then the sign_key. */
export function signValues(values: readonly unknown[], signKey: string, form: SignatureForm = 'spaces-removed'): string {
  const hash = createHash('sha256');
  for (const v of values) hash.update(form === 'spaces-removed' ? valueText(v).replaceAll(' ', '') : valueText(v), 'utf8');
  return hash.update(signKey, 'utf8').digest('hex');
}

/**
 * shopper_signature of /v1/checkout: proves the merchant's shopper_id, so the hosted card page offers that shopper's
 * saved cards and saving one. Lower-case hex SHA-256 of merchant_id + account_id + shopper_id + sign_key.
 */
export function shopperSignature(merchantId: string, accountId: string, shopperId: string, signKey: string): string {
  return signValues([merchantId, accountId, shopperId], signKey);
}

/** The values a request of this call signs, in order (batch calls add every transaction_id of their array). */
export function requestValues(endpoint: Endpoint, body: Readonly<Record<string, unknown>>): unknown[] {
  const values = REQUEST_FIELDS[endpoint].map((f) => body[f]);
  const array = BATCH_ARRAYS[endpoint];
  if (array) {
    const orders = Array.isArray(body[array]) ? (body[array] as { transaction_id?: unknown }[]) : [];
    values.push(...orders.map((o) => o?.transaction_id));
  }
  return values;
}

/** The body with its encryption_data set for this call. */
export function signRequest<T extends Record<string, unknown>>(
  endpoint: Endpoint,
  body: T,
  signKey: string,
  form: SignatureForm = 'spaces-removed',
): T & { encryption_data: string } {
  return { ...body, encryption_data: signValues(requestValues(endpoint, body), signKey, form) };
}

/** Case-insensitive, constant-time comparison of two hex signatures (length checked first). */
export function sameSignature(received: string, expected: string): boolean {
  const a = Buffer.from(received.toLowerCase(), 'utf8');
  const b = Buffer.from(expected.toLowerCase(), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the X-Signature header of a notification. */
export function xSignature(rawBody: string, signKey: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', signKey).update(`${unixSeconds}.${rawBody}`, 'utf8').digest('hex')}`;
}
