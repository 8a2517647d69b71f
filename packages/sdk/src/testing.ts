import { NOTIFICATION_FIELDS, signValues, xSignature } from './signing.js';

/**
 * Signs a sample notification for a merchant's own tests of their notification handler: the form body the
 * gateway would POST (encryption_data set) and its X-Signature header, at `unixSeconds` (default now).
 */
export function signSampleNotification(
  fields: Record<string, string>,
  signKey: string,
  unixSeconds = Math.floor(Date.now() / 1000),
): { body: string; headers: { 'content-type': string; 'x-signature': string } } {
  const identifier = fields.order_no ?? fields.request_id ?? fields.recurring_id ?? '';
  const values = NOTIFICATION_FIELDS.map((f) => (f === 'order_no' ? identifier : fields[f]));
  const body = new URLSearchParams({ ...fields, encryption_data: signValues(values, signKey) }).toString();
  return { body, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-signature': xSignature(body, signKey, unixSeconds) } };
}
