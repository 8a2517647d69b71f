import type { NextFunction, Request, Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { GatewayError } from '../../core/kernel/errors.js';
import { isSignedPath } from './authenticate.js';
import { clientAddress } from '../client-address.js';

const WINDOW_MS = 60_000;
/** how long a client address that failed too often is refused */
export const AUTH_BLOCK_MS = 60_000;

const clientIp = (req: Request): string => clientAddress(req) ?? 'unknown';

/** How long this process trusts what it read of an address's block (other processes' blocks show within it). */
const BLOCK_CACHE_MS = 1_000;
const BLOCK_CACHE_MAX = 10_000;

/**
 * Per-process memory of block reads, so a merchant call costs no store round trip for its address more
 * than once a second. Time is the process's own (a cache, not a rule).
 */
class BlockCache {
  private entries = new Map<string, { blocked: boolean; until: number }>();

  get(ip: string): boolean | undefined {
    const e = this.entries.get(ip);
    if (!e || e.until <= Date.now()) return undefined;
    return e.blocked;
  }

  set(ip: string, blocked: boolean, forMs = BLOCK_CACHE_MS): void {
    if (this.entries.size >= BLOCK_CACHE_MAX) this.entries.clear();
    this.entries.set(ip, { blocked, until: Date.now() + forMs });
  }
}

const caches = new WeakMap<CoreDeps, BlockCache>();
function cacheOf(deps: CoreDeps): BlockCache {
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, (cache = new BlockCache()));
  return cache;
}

/**
 * Failed authentications are limited per client address (AUTH_FAILURES_PER_MINUTE): past the limit, every
 * call from that address is refused (429) for a minute, so signatures and sign keys cannot be guessed at
 * speed. Behind a proxy, TRUST_PROXY must be set, or every shopper and merchant shares the proxy's address.
 */
export function authThrottle(deps: CoreDeps) {
  const refuse = (): never => {
    throw new GatewayError(
      'RATE_LIMITED',
      'too many failed authentications from this address; try again later',
      undefined,
      AUTH_BLOCK_MS / 1000,
    );
  };
  // synchronous while the cache answers: no promise per call on the payment path
  return (req: Request, _res: Response, next: NextFunction): void | Promise<void> => {
    // merchant calls only: the hosted pages are the shopper's, and a shared address must not lock them out
    if (deps.authFailuresPerMinute <= 0 || req.method !== 'POST' || !isSignedPath(req.path)) return next();
    const ip = clientIp(req);
    const cache = cacheOf(deps);
    const known = cache.get(ip);
    if (known === true) refuse();
    if (known === false) return next();
    return deps.store.authBlocked(ip).then((blocked) => {
      cache.set(ip, blocked);
      if (blocked) refuse();
      next();
    });
  };
}

/** Counts each 401 against its client address before it is answered (an error middleware). */
export function countAuthFailures(deps: CoreDeps) {
  return async (err: unknown, req: Request, _res: Response, next: NextFunction): Promise<void> => {
    if (deps.authFailuresPerMinute > 0 && err instanceof GatewayError && err.code === 'AUTHENTICATION_FAILED') {
      const ip = clientIp(req);
      const now = deps.clock.now();
      const count = await deps.store.countAuthFailure(ip, WINDOW_MS, now - (now % WINDOW_MS)).catch(() => 0);
      if (count >= deps.authFailuresPerMinute) {
        await deps.store.blockAuth(ip, AUTH_BLOCK_MS).catch(() => undefined);
        cacheOf(deps).set(ip, true, AUTH_BLOCK_MS);
      }
    }
    next(err);
  };
}
