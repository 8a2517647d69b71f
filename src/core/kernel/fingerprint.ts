import type { CoreDeps } from '../ports/deps.js';

/** JSON with keys sorted at every level, so the same request always has the same fingerprint. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
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
