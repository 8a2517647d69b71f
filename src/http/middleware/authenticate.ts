import { authenticationFailed, GatewayError, invalidField, missingField } from '../../core/kernel/errors.js';
import { formerKeyPasses, type Account } from '../../core/records/directory.js';
import type { CoreDeps } from '../../core/ports/deps.js';
import { requestSignatureMatches, type SignedValue } from '../../core/kernel/signing.js';
import { callAt, type CallSpec } from '../calls/index.js';

/** The values of the named fields, in order, as the signature rule reads them. */
export function fieldValues(body: Record<string, unknown>, fields: readonly string[]): SignedValue[] {
  return fields.map((f) => body[f] as SignedValue);
}

/** True for a merchant call signed by docs/api.md#signatures (a declared call), without building its values. */
export function isSignedPath(path: string): boolean {
  return callAt(path) !== undefined;
}

/** The values `call`'s request signature covers (docs/api.md#signatures), in order. */
export function signedValues(call: CallSpec, body: Record<string, unknown>): SignedValue[] {
  if (call.batchArray !== undefined) {
    const list = body[call.batchArray];
    const ids = Array.isArray(list)
      ? list.map((o) => (o && typeof o === 'object' ? (o as Record<string, unknown>).transaction_id : undefined))
      : [];
    return [body.merchant_id, body.account_id, ...ids] as SignedValue[];
  }
  return fieldValues(body, call.requestSignature);
}

/** The values the call at `path` signs, or undefined for a path that declares no call. */
export function signedValuesFor(path: string, body: Record<string, unknown>): SignedValue[] | undefined {
  const call = callAt(path);
  return call && signedValues(call, body);
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
