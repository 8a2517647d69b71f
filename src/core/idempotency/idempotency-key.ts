import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import { GatewayError } from '../kernel/errors.js';
import type { IdempotencyRecord } from '../records/idempotency-record.js';

export type { IdempotencyRecord };

/** How long a first answer is kept and replayed, and how long a running first call holds its key. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const RUNNING_LEASE_MS = 60_000;

export type StoredAnswer = NonNullable<IdempotencyRecord['answer']>;

export type Begin = { kind: 'run'; version: number } | { kind: 'replay'; answer: StoredAnswer };

/**
 * Starts a call under an Idempotency-Key (per account): the first call claims the key by a versioned
 * write; a repeat with the same request gets the kept answer; another request under the key, or a repeat
 * while the first still runs, is refused (409). `formerHash`: the request's hash in the form keys were kept
 * in before (kernel/fingerprint.ts), asked only when the current one does not match.
 */
export async function beginIdempotent(
  deps: CoreDeps,
  account: Account,
  key: string,
  requestHash: string,
  formerHash?: () => string,
  ttlMs = IDEMPOTENCY_TTL_MS,
): Promise<Begin> {
  const m = account.merchant_id;
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = deps.clock.now();
    const rec = await deps.store.getIdempotency(m, account.account_id, key);
    const live = rec && rec.created_at + ttlMs > now;
    if (live) {
      if (rec.request_hash !== requestHash && rec.request_hash !== formerHash?.()) {
        throw new GatewayError('IDEMPOTENCY_CONFLICT', 'Idempotency-Key: was already used for a different request', 'Idempotency-Key');
      }
      if (rec.status === 'done' && rec.answer) return { kind: 'replay', answer: rec.answer };
      if (rec.lease_until > now) {
        throw new GatewayError(
          'IDEMPOTENCY_IN_PROGRESS',
          'Idempotency-Key: the first request with this key is still running',
          'Idempotency-Key',
        );
      }
    }
    const next: IdempotencyRecord = {
      version: 0,
      request_hash: requestHash,
      status: 'running',
      lease_until: now + RUNNING_LEASE_MS,
      created_at: now,
    };
    const expected = rec?.version ?? 0;
    const claimed = await deps.store.commit({
      merchantId: m,
      idempotency: [{ accountId: account.account_id, key, next, expected, ttlMs }],
    });
    if (claimed) return { kind: 'run', version: expected + 1 };
  }
  throw new GatewayError('IDEMPOTENCY_IN_PROGRESS', 'Idempotency-Key: the first request with this key is still running', 'Idempotency-Key');
}

/** Keeps the first call's answer for replay, or (answer null) frees the key so the call may be retried. */
export async function finishIdempotent(
  deps: CoreDeps,
  account: Account,
  key: string,
  requestHash: string,
  version: number,
  answer: StoredAnswer | null,
  ttlMs = IDEMPOTENCY_TTL_MS,
): Promise<void> {
  const now = deps.clock.now();
  const next: IdempotencyRecord | null = answer && {
    version,
    request_hash: requestHash,
    status: 'done',
    lease_until: 0,
    created_at: now,
    answer,
  };
  await deps.store.commit({
    merchantId: account.merchant_id,
    idempotency: [{ accountId: account.account_id, key, next, expected: version, ttlMs }],
  });
}
