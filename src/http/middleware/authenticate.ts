import { authenticationFailed, GatewayError, invalidField, missingField } from '../../core/kernel/errors.js';
import { formerKeyPasses, type Account } from '../../core/merchants/directory.js';
import type { CoreDeps } from '../../core/ports/deps.js';
import { REQUEST_SIGNATURE_FIELDS, requestSignatureMatches, type SignedValue } from '../../core/kernel/signing.js';

/** The values of the named fields, in order, as the signature rule reads them. */
export function fieldValues(body: Record<string, unknown>, fields: readonly string[]): SignedValue[] {
  return fields.map((f) => body[f] as SignedValue);
}

/** Looked up by the request's path: Maps, so no path names an inherited member. */
const BATCH_ARRAYS: ReadonlyMap<string, string> = new Map([
  ['/v1/capture', 'capture_orders'],
  ['/v1/review', 'review_orders'],
  ['/v1/cancel', 'cancel_orders'],
  ['/v1/refund', 'refund_orders'],
]);
const SIGNED: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ['/v1/authorise', REQUEST_SIGNATURE_FIELDS.authorise],
  ['/v1/checkout', REQUEST_SIGNATURE_FIELDS.checkout],
  ['/v1/cancelsubscription', REQUEST_SIGNATURE_FIELDS.cancelsubscription],
  ['/v1/notifications/resend', REQUEST_SIGNATURE_FIELDS.resend],
  ['/v1/retrievalTrans', REQUEST_SIGNATURE_FIELDS.retrieval],
  ['/v1/retrievalRefund', REQUEST_SIGNATURE_FIELDS.retrieval],
  ['/v1/payout', REQUEST_SIGNATURE_FIELDS.payout],
  ['/v1/payout/query', REQUEST_SIGNATURE_FIELDS.payoutQuery],
  ['/v1/optimise', REQUEST_SIGNATURE_FIELDS.optimise],
  ['/v1/testClock', REQUEST_SIGNATURE_FIELDS.testClock],
  ['/v1/testClockAdvance', REQUEST_SIGNATURE_FIELDS.testClockAdvance],
  ['/v1/retrievalTestClock', REQUEST_SIGNATURE_FIELDS.retrievalTestClock],
  ['/v1/testClockDelete', REQUEST_SIGNATURE_FIELDS.testClockDelete],
  ['/v1/retrievalCards', REQUEST_SIGNATURE_FIELDS.retrievalCards],
  ['/v1/deleteCard', REQUEST_SIGNATURE_FIELDS.deleteCard],
  ['/v1/retrievalDispute', REQUEST_SIGNATURE_FIELDS.retrievalDispute],
  ['/v1/disputeEvidence', REQUEST_SIGNATURE_FIELDS.dispute],
  ['/v1/disputeAccept', REQUEST_SIGNATURE_FIELDS.dispute],
]);

/** True for a merchant call signed by docs/api.md#signatures (the paths signedValuesFor knows), without building its values. */
export function isSignedPath(path: string): boolean {
  return BATCH_ARRAYS.has(path) || SIGNED.has(path);
}

/** The values the call's request signature covers (docs/api.md#signatures), or undefined for an unknown path. */
export function signedValuesFor(path: string, body: Record<string, unknown>): SignedValue[] | undefined {
  const array = BATCH_ARRAYS.get(path);
  if (array) {
    const list = body[array];
    const ids = Array.isArray(list)
      ? list.map((o) => (o && typeof o === 'object' ? (o as Record<string, unknown>).transaction_id : undefined))
      : [];
    return [body.merchant_id, body.account_id, ...ids] as SignedValue[];
  }
  const fields = SIGNED.get(path);
  return fields && fields.map((f) => body[f] as SignedValue);
}

/**
 * Finds the account and checks the request signature over `signed` (the call's values in the order docs/api.md#signatures lists; spaces
 * removed or values as sent, either is accepted), before any other validation, so an unsigned caller learns nothing about the rest of its request.
 * One answer for an unknown merchant, an unknown account and a wrong signature.
 */
export async function authenticate(
  deps: Pick<CoreDeps, 'merchants' | 'store' | 'clock'>,
  body: Record<string, unknown>,
  signed: readonly SignedValue[],
): Promise<Account> {
  const m = credential(body, 'merchant_id', 7);
  const a = credential(body, 'account_id', 10);
  const sig = body.encryption_data;
  if (sig === undefined || sig === '') throw missingField('encryption_data');
  if (typeof sig !== 'string' || !/^[0-9a-fA-F]{64}$/.test(sig)) throw invalidField('encryption_data', 'must be 64 hexadecimal characters');
  const account = deps.merchants.find(m, a);
  if (!account) throw authenticationFailed();
  if (
    !requestSignatureMatches(sig, signed, account.sign_key) &&
    !formerKeyPasses(account, deps.clock.now(), (key) => requestSignatureMatches(sig, signed, key))
  )
    throw authenticationFailed();
  await enforceRateLimit(deps, account);
  return account;
}

function credential(body: Record<string, unknown>, field: string, max: number): string {
  const v = body[field];
  if (v === undefined || v === '') throw missingField(field);
  if (typeof v !== 'string') throw invalidField(field, 'must be a string');
  if (v.length > max) throw invalidField(field, `must be at most ${max} characters`);
  return v;
}

async function enforceRateLimit(deps: Pick<CoreDeps, 'store' | 'clock'>, account: Account): Promise<void> {
  const limit = account.rate_limit_per_second;
  if (limit <= 0) return;
  const now = deps.clock.now();
  const windowStart = now - (now % 1000);
  const count = await deps.store.countCall(account.merchant_id, account.account_id, 1000, windowStart);
  if (count > limit) throw new GatewayError('RATE_LIMITED', `more than ${limit} calls a second for this account`, undefined, 1);
}
