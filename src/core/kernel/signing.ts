import { createHmac, hash, timingSafeEqual } from 'node:crypto';

/**
 * The signature rule of docs/api.md#signatures: SHA-256 over the listed values (spaces removed, no separator)
 * followed by the account's sign_key, written as hex. Existing integrations of this API family also sign
 * the values as sent, spaces kept: a request signature may be in either form; ours are spaces-removed.
 */
export type SignedValue = string | number | boolean | null | undefined;

/** Field order of every request signature, by call. */
export const REQUEST_SIGNATURE_FIELDS = {
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
  batch: ['merchant_id', 'account_id'],
  cancelsubscription: ['merchant_id', 'account_id', 'recurring_id'],
  /** POST /v1/notifications/resend (this project's addition; docs/notifications.md) */
  resend: ['merchant_id', 'account_id', 'notify_id', 'order_no'],
  retrieval: ['merchant_id', 'account_id'],
  payout: ['merchant_id', 'account_id', 'request_id', 'payment_currency', 'payment_amount'],
  /** /v1/payout/query names the payout by request_id and/or transaction_id; the absent one signs as '' */
  payoutQuery: ['merchant_id', 'account_id', 'request_id', 'transaction_id'],
  optimise: ['merchant_id', 'account_id', 'request_id', 'currency', 'amount', 'shopper_email'],
  /** test clocks (docs/test-clocks.md) */
  testClock: ['merchant_id', 'account_id', 'request_id'],
  testClockAdvance: ['merchant_id', 'account_id', 'test_clock_id', 'frozen_time'],
  retrievalTestClock: ['merchant_id', 'account_id'],
  testClockDelete: ['merchant_id', 'account_id', 'test_clock_id'],
  /** a shopper's saved cards (docs/checkout.md#saved-cards-for-returning-shoppers) */
  retrievalCards: ['merchant_id', 'account_id', 'shopper_id'],
  deleteCard: ['merchant_id', 'account_id', 'shopper_id', 'card_id'],
  /** disputes (docs/disputes.md): the search, then evidence and accept */
  retrievalDispute: ['merchant_id', 'account_id'],
  dispute: ['merchant_id', 'account_id', 'dispute_id'],
} as const;

/** Field order of every signature the gateway writes (answers, results, notifications). */
export const RESPONSE_SIGNATURE_FIELDS = {
  payment: ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'order_status'],
  batch: ['merchant_id', 'account_id', 'return_status'],
  cancelsubscription: ['merchant_id', 'account_id', 'recurring_id', 'cancel_status'],
  payout: ['merchant_id', 'account_id', 'request_id', 'status'],
  notification: ['merchant_id', 'account_id', 'notify_type', 'notify_id', 'order_no'],
  optimise: ['merchant_id', 'account_id', 'return_status'],
  /** a payout has no order_no: its request_id takes that place (docs/api.md#signatures) */
} as const;

function valueText(v: SignedValue): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** `spaces-removed`: every U+0020 of every value removed (the gateway's form); `as-sent`: values as they are. */
export type SignatureForm = 'spaces-removed' | 'as-sent';

/** Signs values in the given order; the result is lower-case hex. */
export function signValues(values: readonly SignedValue[], signKey: string, form: SignatureForm = 'spaces-removed'): string {
  // the one-shot hash: no Hash object per signature (two or three signatures on every call)
  return hash('sha256', signedText(values, signKey, form), 'hex');
}

/** What a signature hashes: the values' texts one after another, then the key (one update, not one per value). */
function signedText(values: readonly SignedValue[], signKey: string, form: SignatureForm): string {
  let text = '';
  for (const v of values) text += form === 'as-sent' ? valueText(v) : valueText(v).replaceAll(' ', '');
  return text + signKey;
}

/** Signs the named fields of a record in the given order. */
export function signFields(record: object, fields: readonly string[], signKey: string): string {
  return signValues(
    fields.map((f) => (record as Readonly<Record<string, unknown>>)[f] as SignedValue),
    signKey,
  );
}

/** Case-insensitive, constant-time comparison of a received signature with the expected one. */
export function signatureMatches(received: unknown, expected: string): boolean {
  if (typeof received !== 'string') return false;
  // compare byte lengths: 64 characters of text may be more than 64 bytes, which timingSafeEqual throws on
  const got = Buffer.from(received.toLowerCase(), 'utf8');
  const want = Buffer.from(expected.toLowerCase(), 'utf8');
  return got.length === want.length && timingSafeEqual(got, want);
}

/**
 * A request's signature, accepted in either form (docs/api.md#signatures). Both comparisons always run, so the time taken
 * says nothing about which form matched or how much of either did.
 */
export function requestSignatureMatches(received: unknown, values: readonly SignedValue[], signKey: string): boolean {
  const removedText = signedText(values, signKey, 'spaces-removed');
  const sentText = signedText(values, signKey, 'as-sent');
  const removed = hash('sha256', removedText, 'hex');
  // values without spaces read the same in both forms: one hash serves both comparisons (whether the
  // merchant's own values hold a space is no secret)
  const sent = sentText === removedText ? removed : hash('sha256', sentText, 'hex');
  const spacesRemoved = signatureMatches(received, removed);
  const asSent = signatureMatches(received, sent);
  return spacesRemoved || asSent;
}

/** The X-Signature header of a notification: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`. */
export function notificationHeader(body: string, signKey: string, unixSeconds: number): string {
  const mac = createHmac('sha256', signKey).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** Strict request signatures (docs/security.md): how far the header's time may be from the gateway's clock. */
export const STRICT_TOLERANCE_SECONDS = 300;

/**
 * The MAC of a strict request signature: lower-case hex HMAC-SHA256, keyed by the account's sign_key, of
 * `<t>.<METHOD>.<path>.<raw body>`. Method and path bind it to one call; t bounds its life; the raw body
 * covers every field, not only the ones docs/api.md#signatures lists.
 */
export function requestMac(signKey: string, unixSeconds: number, method: string, path: string, rawBody: string): string {
  return createHmac('sha256', signKey).update(`${unixSeconds}.${method.toUpperCase()}.${path}.${rawBody}`, 'utf8').digest('hex');
}

/** The header a strict account sends: `t=<unix seconds>,v1=<requestMac>` (the helper merchants' tests use). */
export function requestSignatureHeader(signKey: string, unixSeconds: number, method: string, path: string, rawBody: string): string {
  return `t=${unixSeconds},v1=${requestMac(signKey, unixSeconds, method, path, rawBody)}`;
}

/**
 * The first moment (ms) at which a strict signature of time `t` (unix seconds) is outside the tolerance, by
 * the clock that checks it: until then it must be remembered, or it could be sent again. A signature dated
 * ahead lives up to twice the tolerance from its first use; one dated now, the tolerance.
 */
export function strictSignatureExpiry(t: number): number {
  // the check compares whole seconds: t + tolerance is still accepted until its last millisecond
  return (t + STRICT_TOLERANCE_SECONDS + 1) * 1000;
}

export type StrictCheck = { ok: true; mac: string; t: number } | { ok: false; reason: string };

/** Checks an X-Signature header against the request; says why it failed (for the log, not the caller). */
export function verifyRequestSignature(
  header: string | undefined,
  signKey: string,
  nowSeconds: number,
  method: string,
  path: string,
  rawBody: string,
): StrictCheck {
  if (!header) return { ok: false, reason: 'no X-Signature header' };
  let t: number | undefined;
  const macs: string[] = [];
  for (const part of header.split(',')) {
    const [name, value] = part.trim().split('=', 2) as [string, string | undefined];
    if (name === 't' && value && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (name === 'v1' && value) macs.push(value);
  }
  if (t === undefined || macs.length === 0) return { ok: false, reason: 'X-Signature is not t=<unix seconds>,v1=<hex>' };
  if (Math.abs(nowSeconds - t) > STRICT_TOLERANCE_SECONDS) return { ok: false, reason: 'X-Signature time is outside the tolerance' };
  const expected = requestMac(signKey, t, method, path, rawBody);
  const mac = macs.find((m) => signatureMatches(m, expected));
  return mac ? { ok: true, mac: expected, t } : { ok: false, reason: 'X-Signature does not match the request' };
}
