import { createHmac } from 'node:crypto';
import { ANSWER_FIELDS, NOTIFICATION_FIELDS, RETURN_FIELDS, sameSignature, signValues, type Endpoint } from './signing.js';

/** A verification's verdict: ok, or why not (so a merchant fixes the right thing). */
export type Verdict = { ok: true; reason?: undefined } | { ok: false; reason: string };

/** Seconds a notification's timestamp may differ from the receiver's clock before it counts as a replay. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

function checkFields(record: Readonly<Record<string, unknown>>, fields: readonly string[], signKey: string): Verdict {
  const received = record.encryption_data;
  if (typeof received !== 'string' || received === '') return { ok: false, reason: 'encryption_data is missing' };
  if (!/^[0-9a-fA-F]{64}$/.test(received)) return { ok: false, reason: 'encryption_data is not 64 hexadecimal characters' };
  const expected = signValues(
    fields.map((f) => record[f]),
    signKey,
  );
  if (sameSignature(received, expected)) return { ok: true };
  return {
    ok: false,
    reason: `encryption_data does not match SHA-256 of ${fields.join(', ')} and the sign_key (wrong sign_key, or a field was changed)`,
  };
}

/** Checks an answer's encryption_data (the respon document's too: its upper-case hex compares equal). */
export function verifyAnswer(endpoint: Endpoint, answer: Readonly<Record<string, unknown>>, signKey: string): Verdict {
  const fields = ANSWER_FIELDS[endpoint];
  if (fields.length === 0) return { ok: false, reason: `the ${endpoint} answer carries no signature` };
  return checkFields(answer, fields, signKey);
}

/**
 * Checks the signed result the hosted checkout appends to the shopper's return_url (order_no, order_status,
 * result_info, amount, currency, transaction_id, note, encryption_data). The query names no merchant, so the
 * merchant's own identifiers complete the signed values.
 */
export function verifyReturnQuery(
  query: string | URLSearchParams,
  account: { merchantId: string; accountId: string; signKey: string },
): Verdict & { fields: Record<string, string> } {
  const params = typeof query === 'string' ? new URLSearchParams(query.replace(/^.*\?/, '')) : query;
  const fields = Object.fromEntries(params);
  const record = { ...fields, merchant_id: account.merchantId, account_id: account.accountId };
  return { ...checkFields(record, RETURN_FIELDS, account.signKey), fields };
}

/** Parses `t=...,v1=...`; undefined parts when absent. */
function parseHeader(header: string): { t?: number; macs: string[] } {
  let t: number | undefined;
  const macs: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v && /^\d+$/.test(v)) t = Number(v);
    if (k === 'v1' && v) macs.push(v);
  }
  return t === undefined ? { macs } : { t, macs };
}

export interface NotificationCheck {
  /** the exact body received (form fields) */
  rawBody: string | Buffer;
  /** the X-Signature header; when absent only encryption_data is checked and the verdict says so */
  xSignature?: string | string[] | undefined;
  signKey: string;
  toleranceSeconds?: number;
  nowSeconds?: number;
}

/**
 * Checks a notification's `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` header:
 * the HMAC over the exact body received, and a timestamp within `toleranceSeconds` of `nowSeconds`, so a
 * captured notification cannot be replayed later.
 */
export function verifyXSignature(
  header: string | string[] | undefined,
  rawBody: string | Buffer,
  signKey: string,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  nowSeconds = Math.floor(Date.now() / 1000),
): Verdict {
  const text = Array.isArray(header) ? header[0] : header;
  if (!text) return { ok: false, reason: 'X-Signature header is missing' };
  const { t, macs } = parseHeader(text);
  if (t === undefined || macs.length === 0) return { ok: false, reason: 'X-Signature is not of the form t=<unix seconds>,v1=<hex>' };
  if (Math.abs(nowSeconds - t) > toleranceSeconds)
    return {
      ok: false,
      reason: `X-Signature timestamp is ${Math.abs(nowSeconds - t)} s away from now (tolerance ${toleranceSeconds} s): a replay, or a wrong clock`,
    };
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const expected = createHmac('sha256', signKey).update(`${t}.${body}`, 'utf8').digest('hex');
  if (!macs.some((m) => sameSignature(m, expected)))
    return { ok: false, reason: 'X-Signature v1 does not match HMAC-SHA256 of "<t>.<body>" (wrong sign_key, or the body was changed)' };
  return { ok: true };
}

/**
 * Checks a notification's `encryption_data`: SHA-256 of merchant_id, account_id, notify_type, notify_id and
 * the order's identifier (a payout's request_id, a subscription's recurring_id, a test clock's test_clock_id where
 * there is no order),
 * spaces removed, then the sign_key.
 */
export function verifyNotificationFields(fields: Readonly<Record<string, string | undefined>>, signKey: string): Verdict {
  const identifier = fields.order_no ?? fields.request_id ?? fields.recurring_id ?? fields.test_clock_id ?? '';
  return checkFields({ ...fields, order_no: identifier }, NOTIFICATION_FIELDS, signKey);
}

/**
 * Checks a notification both ways: the X-Signature HMAC over the exact body and its timestamp (replays are
 * refused), then encryption_data over notify_type, notify_id and the order's identifier. Answers the fields too.
 */
export function verifyNotification(check: NotificationCheck): Verdict & { fields: Record<string, string> } {
  const body = typeof check.rawBody === 'string' ? check.rawBody : check.rawBody.toString('utf8');
  const fields = Object.fromEntries(new URLSearchParams(body));
  const header = verifyXSignature(check.xSignature, body, check.signKey, check.toleranceSeconds, check.nowSeconds);
  const verdict = header.ok ? verifyNotificationFields(fields, check.signKey) : header;
  return { ...verdict, fields };
}
