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
 * Checks a notification both ways: the X-Signature HMAC over the exact body and its timestamp (replays are
 * refused), then encryption_data over notify_type, notify_id and the order's identifier (a payout's
 * request_id, a subscription's recurring_id where there is no order). Answers the fields too.
 */
export function verifyNotification(check: NotificationCheck): Verdict & { fields: Record<string, string> } {
  const body = typeof check.rawBody === 'string' ? check.rawBody : check.rawBody.toString('utf8');
  const fields = Object.fromEntries(new URLSearchParams(body));
  const fail = (reason: string) => ({ ok: false as const, reason, fields });
  const header = Array.isArray(check.xSignature) ? check.xSignature[0] : check.xSignature;
  if (!header) return fail('X-Signature header is missing');
  const { t, macs } = parseHeader(header);
  if (t === undefined || macs.length === 0) return fail('X-Signature is not of the form t=<unix seconds>,v1=<hex>');
  const now = check.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = check.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - t) > tolerance)
    return fail(`X-Signature timestamp is ${Math.abs(now - t)} s away from now (tolerance ${tolerance} s): a replay, or a wrong clock`);
  const expected = createHmac('sha256', check.signKey).update(`${t}.${body}`, 'utf8').digest('hex');
  if (!macs.some((m) => sameSignature(m, expected)))
    return fail('X-Signature v1 does not match HMAC-SHA256 of "<t>.<body>" (wrong sign_key, or the body was changed)');
  const identifier = fields.order_no ?? fields.request_id ?? fields.recurring_id ?? '';
  const verdict = checkFields({ ...fields, order_no: identifier }, NOTIFICATION_FIELDS, check.signKey);
  return verdict.ok ? { ok: true, fields } : fail(verdict.reason);
}
