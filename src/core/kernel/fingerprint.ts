import type { CoreDeps } from '../ports/deps.js';

/**
 * JSON with keys sorted at every level, so the same request always has the same fingerprint. Stored
 * fingerprints depend on this exact text: strings and numbers as JSON.stringify writes them, undefined and
 * functions as null. Built in one pass of string appends (it showed in the authorise path's profile).
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return out + ']';
  }
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    let out = '{';
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      out += (i === 0 ? '' : ',') + JSON.stringify(k) + ':' + canonicalJson((value as Record<string, unknown>)[k]);
    }
    return out + '}';
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The request's fingerprint for idempotency: everything but its signature, keyed by the vault key (it may
 * cover card or bank data, which must not be recoverable by guessing).
 */
export function requestFingerprint(deps: Pick<CoreDeps, 'vault'>, body: Record<string, unknown>): string {
  const { encryption_data: _sig, ...rest } = body;
  return deps.vault.fingerprint(canonicalJson(rest));
}
