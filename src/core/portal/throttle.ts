import type { CoreDeps } from '../ports/deps.js';
import type { LoginFailures, ThrottleScope } from './portal-records.js';

export type { LoginFailures, ThrottleScope };

/** 5 wrong passwords for one e-mail, or 20 from one address, within 15 minutes block that scope until the window ends. */
export const LOGIN_LIMITS: Readonly<Record<ThrottleScope, number>> = { user: 5, ip: 20 };
export const LOGIN_WINDOW_MS = 15 * 60_000;
/**
 * Rounds of a contended count before the attempt is refused. Each lost round means another attempt was
 * counted (or settled), and a scope admits at most its limit, so honest contention ends well before this.
 */
const MAX_ROUNDS = 64;

const live = (f: LoginFailures | undefined, now: number): f is LoginFailures => f !== undefined && now - f.first_at < LOGIN_WINDOW_MS;

/** A password check that was counted as a failure before it ran; `settleSignIn` takes it back if it succeeds. */
export interface LoginAttempt {
  email: string;
  ip: string;
  /** the address's window the attempt was counted in */
  ipWindow: number;
}

export type Admission = { admitted: true; attempt: LoginAttempt } | { admitted: false; retryAfter: number };

/**
 * Counts a password check as a failure before it runs, in one versioned step for the e-mail and the address:
 * guesses sent at once are throttled exactly like guesses sent one by one (at most the limit is ever
 * checked in a window). A blocked e-mail or address is refused without counting or checking anything.
 */
export async function admitLoginAttempt(deps: CoreDeps, email: string, ip: string): Promise<Admission> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const now = deps.clock.now();
    const [user, addr] = await Promise.all([deps.store.getLoginFailures('user', email), deps.store.getLoginFailures('ip', ip)]);
    let wait = 0;
    for (const [scope, f] of [
      ['user', user],
      ['ip', addr],
    ] as const) {
      if (live(f, now) && f.count >= LOGIN_LIMITS[scope]) wait = Math.max(wait, Math.ceil((f.first_at + LOGIN_WINDOW_MS - now) / 1000));
    }
    if (wait > 0) return { admitted: false, retryAfter: wait };
    const nextUser = counted(user, now);
    const nextAddr = counted(addr, now);
    const saved = await deps.store.saveLoginFailures([
      { scope: 'user', id: email, next: nextUser, expected: user?.version ?? 0, ttlMs: ttlOf(nextUser, now) },
      { scope: 'ip', id: ip, next: nextAddr, expected: addr?.version ?? 0, ttlMs: ttlOf(nextAddr, now) },
    ]);
    if (saved) return { admitted: true, attempt: { email, ip, ipWindow: nextAddr.first_at } };
  }
  // only a flood of attempts at the same e-mail or address gets here: refuse rather than check uncounted
  deps.log.warn({ ip }, 'portal sign-in not counted after repeated conflicts: refused');
  return { admitted: false, retryAfter: 1 };
}

const counted = (f: LoginFailures | undefined, now: number): LoginFailures =>
  live(f, now) ? { ...f, count: f.count + 1 } : { version: 0, count: 1, first_at: now };

/** The store keeps a count until its window ends (the clock decides; the expiry only frees the memory). */
const ttlOf = (f: LoginFailures, now: number): number => Math.max(1, f.first_at + LOGIN_WINDOW_MS - now);

/**
 * The right password: the e-mail's count is cleared, and the address gets back the attempt counted for this
 * check (its failures stay counted). A lost race is tried again; giving up leaves the attempt counted (safe).
 */
export async function settleSignIn(deps: CoreDeps, attempt: LoginAttempt): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const now = deps.clock.now();
    const [user, addr] = await Promise.all([
      deps.store.getLoginFailures('user', attempt.email),
      deps.store.getLoginFailures('ip', attempt.ip),
    ]);
    const changes = [];
    if (user) changes.push({ scope: 'user' as const, id: attempt.email, next: null, expected: user.version, ttlMs: 0 });
    if (live(addr, now) && addr.first_at === attempt.ipWindow && addr.count > 0) {
      const next = addr.count > 1 ? { ...addr, count: addr.count - 1 } : null;
      changes.push({ scope: 'ip' as const, id: attempt.ip, next, expected: addr.version, ttlMs: ttlOf(addr, now) });
    }
    if (changes.length === 0 || (await deps.store.saveLoginFailures(changes))) return;
  }
}

/** Clears an e-mail's count (an operator's unblock; tests). */
export async function clearLoginFailures(deps: CoreDeps, email: string): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const f = await deps.store.getLoginFailures('user', email);
    if (!f || (await deps.store.saveLoginFailures([{ scope: 'user', id: email, next: null, expected: f.version, ttlMs: 0 }]))) return;
  }
}
