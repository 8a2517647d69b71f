import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A small, self-contained helper for merchants calling the gateway and receiving its notifications (copy this
 * file into your project; it needs only node:crypto). Sign a request with `signRequest`, in either form the
 * gateway accepts. Check both signatures before trusting a notification:
 *
 *   const raw = await readRawBody(req);                        // the exact bytes received
 *   if (!verifyXSignature(req.headers['x-signature'], raw, SIGN_KEY)) return res.status(400).end();
 *   const fields = Object.fromEntries(new URLSearchParams(raw));
 *   if (!verifyNotificationSignature(fields, SIGN_KEY)) return res.status(400).end();
 *   // de-duplicate on fields.notify_id: the same notification may arrive more than once
 */

/** Seconds a notification's timestamp may differ from the receiver's clock before it counts as a replay. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Fields of a notification's encryption_data, in order (then the account's sign_key). */
const NOTIFICATION_FIELDS = ['merchant_id', 'account_id', 'notify_type', 'notify_id', 'order_no'] as const;

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a.toLowerCase(), 'utf8');
  const y = Buffer.from(b.toLowerCase(), 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * How request values are signed. The gateway accepts both (DESIGN 2): `spaces-removed` (every space of every
 * value removed, the gateway's own form) and `as-sent` (the values exactly as sent, as some existing
 * integrations of this API family sign them). The gateway's answers and notifications always use
 * `spaces-removed`, so `verifyNotificationSignature` checks only that form.
 */
export type RequestSignatureForm = 'spaces-removed' | 'as-sent';

/**
 * A request's `encryption_data`: lowercase hex SHA-256 of the call's values in its documented order (a missing
 * field is the empty string, a number its JSON text), no separator, followed by the sign_key. For example
 * /v1/authorise signs merchant_id, account_id, order_no, currency, amount, first_name, last_name, card,
 * expiration_year, expiration_month, security_code, shopper_email; the amount is signed as you send it.
 */
export function signRequest(
  values: readonly (string | number | null | undefined)[],
  signKey: string,
  form: RequestSignatureForm = 'spaces-removed',
): string {
  const text = values
    .map((v) => {
      const t = v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
      return form === 'as-sent' ? t : t.replaceAll(' ', '');
    })
    .join('');
  return createHash('sha256')
    .update(text + signKey, 'utf8')
    .digest('hex');
}

/**
 * Checks a notification's `encryption_data`: lowercase hex SHA-256 of merchant_id, account_id, notify_type,
 * notify_id and order_no (a payout's request_id, a subscription's recurring_id where there is no order),
 * spaces removed, no separator, followed by the sign_key.
 */
export function verifyNotificationSignature(fields: Readonly<Record<string, string | undefined>>, signKey: string): boolean {
  const received = fields.encryption_data;
  if (typeof received !== 'string' || received === '') return false;
  // a payout has no order: its request_id takes that place; a subscription without an order, its recurring_id
  const identifier = fields.order_no ?? fields.request_id ?? fields.recurring_id ?? '';
  const values: Record<string, string | undefined> = { ...fields, order_no: identifier };
  const text = NOTIFICATION_FIELDS.map((f) => (values[f] ?? '').replaceAll(' ', '')).join('');
  const expected = createHash('sha256')
    .update(text + signKey, 'utf8')
    .digest('hex');
  return sameText(received, expected);
}

/**
 * Checks the `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` header: the HMAC over
 * the exact body received, and a timestamp within `toleranceSeconds` of `nowSeconds`, so a captured
 * notification cannot be replayed later.
 */
export function verifyXSignature(
  header: string | string[] | undefined,
  rawBody: string | Buffer,
  signKey: string,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const text = Array.isArray(header) ? header[0] : header;
  if (!text) return false;
  let t: number | undefined;
  const macs: string[] = [];
  for (const part of text.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v && /^\d+$/.test(v)) t = Number(v);
    if (k === 'v1' && v) macs.push(v);
  }
  if (t === undefined || macs.length === 0) return false;
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const expected = createHmac('sha256', signKey).update(`${t}.${body}`, 'utf8').digest('hex');
  return macs.some((mac) => sameText(mac, expected));
}

/** Builds a valid X-Signature header, for merchants' own unit tests of their notification handler. */
export function signTestNotification(rawBody: string, signKey: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac('sha256', signKey).update(`${nowSeconds}.${rawBody}`, 'utf8').digest('hex');
  return `t=${nowSeconds},v1=${mac}`;
}
