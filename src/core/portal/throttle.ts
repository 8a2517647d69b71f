import type { CoreDeps } from '../ports/deps.js';
import type { LoginFailures, ThrottleScope } from '../records/portal-records.js';

export type { LoginFailures, ThrottleScope };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The sign-in throttle's rules (docs/security.md, "Merchant portal"). Failures are counted per (e-mail,
 * address) pair, per address and per e-mail, so that guesses from one place slow down that place and not the
 * user elsewhere:
 * - a pair checks `pairFree` passwords at once, then waits `pairFirstDelayMs` after its next failure, twice as
 *   long after each further one, at most `pairMaxDelayMs`; its failures are forgotten `pairKeptMs` after the last;
 * - an address checks at most `addressLimit` passwords (of any e-mails) within `addressWindowMs`;
 * - an e-mail has at most `emailDailyCap` failures counted in `emailWindowMs`; past that, only an address that
 *   signed in to it within `knownForMs` goes on (its pair's delays, and one try a `overCapGapMs`), and of the
 *   others only a pair with no failures, one for the whole e-mail a `overCapGapMs`.
 */
export const LOGIN_RULES = {
  pairFree: 5,
  pairFirstDelayMs: 30_000,
  pairMaxDelayMs: HOUR,
  pairKeptMs: DAY,
  addressLimit: 20,
  addressWindowMs: 15 * MINUTE,
  emailDailyCap: 100,
  emailWindowMs: DAY,
  knownForMs: 90 * DAY,
  overCapGapMs: MINUTE,
} as const;

/**
 * Rounds of a contended count before the attempt is refused. Each lost round means another attempt was
 * counted (or settled), and every scope admits a bounded number, so honest contention ends well before this.
 */
const MAX_ROUNDS = 64;

const pairId = (email: string, ip: string): string => `${email}\n${ip}`;

/** A count whose window (from `first_at`) is still running at `now`. */
const live = (f: LoginFailures | undefined, windowMs: number, now: number): f is LoginFailures =>
  f !== undefined && now - f.first_at < windowMs;

/** How long a pair with `failures` counted waits after its last one before the next check (0: none). */
export function pairDelayMs(failures: number): number {
  if (failures < LOGIN_RULES.pairFree) return 0;
  return Math.min(LOGIN_RULES.pairFirstDelayMs * 2 ** (failures - LOGIN_RULES.pairFree), LOGIN_RULES.pairMaxDelayMs);
}

/** A password check that was counted as a failure before it ran; `settleSignIn` takes it back if it succeeds. */
export interface LoginAttempt {
  email: string;
  ip: string;
  /** the address's and the e-mail's windows the attempt was counted in */
  ipWindow: number;
  emailWindow: number;
}

export type Admission = { admitted: true; attempt: LoginAttempt } | { admitted: false; retryAfter: number };

interface Counts {
  user: LoginFailures | undefined;
  ip: LoginFailures | undefined;
  pair: LoginFailures | undefined;
}

/** How long (ms) the attempt must wait under the rules, and whether it goes through the e-mail's shared lane. */
function verdict({ user, ip, pair }: Counts, now: number): { waitMs: number; lane: boolean } {
  let waitMs = 0;
  const wait = (until: number) => (waitMs = Math.max(waitMs, until - now));
  if (live(ip, LOGIN_RULES.addressWindowMs, now) && ip.count >= LOGIN_RULES.addressLimit) wait(ip.first_at + LOGIN_RULES.addressWindowMs);
  const failures = pair?.count ?? 0;
  // only a delay the rules impose waits: a pair's last failure dated ahead of this clock (another process's
  // clock, a test clock) adds nothing when its failures call for no delay
  const delay = pairDelayMs(failures);
  if (pair?.last_at !== undefined && delay > 0) wait(pair.last_at + delay);
  let lane = false;
  if (live(user, LOGIN_RULES.emailWindowMs, now) && user.count >= LOGIN_RULES.emailDailyCap) {
    const known = pair?.signed_in_at !== undefined && now - pair.signed_in_at < LOGIN_RULES.knownForMs;
    if (known) wait((pair.last_at ?? 0) + LOGIN_RULES.overCapGapMs);
    else if (failures === 0) {
      lane = true;
      wait((user.lane_at ?? 0) + LOGIN_RULES.overCapGapMs);
    } else wait(user.first_at + LOGIN_RULES.emailWindowMs);
  }
  return { waitMs, lane };
}

/** One more failure in a windowed count (a new window when the last one ended). */
const counted = (f: LoginFailures | undefined, windowMs: number, now: number): LoginFailures =>
  live(f, windowMs, now) ? { ...f, count: f.count + 1 } : { version: 0, count: 1, first_at: now };

/** The store keeps a record until the rules no longer read it (the clock decides; the expiry only frees the memory). */
const ttl = (until: number, now: number): number => Math.max(1, until - now);
const pairUntil = (p: LoginFailures): number =>
  Math.max((p.last_at ?? 0) + LOGIN_RULES.pairKeptMs, (p.signed_in_at ?? 0) + LOGIN_RULES.knownForMs);

/**
 * Counts a password check as a failure before it runs, in one versioned step for the pair, the address and
 * the e-mail: guesses sent at once are throttled exactly like guesses sent one by one. An attempt the rules
 * make wait is refused (with how long) without counting or checking anything.
 */
export async function admitLoginAttempt(deps: CoreDeps, email: string, ip: string): Promise<Admission> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const now = deps.clock.now();
    const [user, addr, pair] = await Promise.all([
      deps.store.getLoginFailures('user', email),
      deps.store.getLoginFailures('ip', ip),
      deps.store.getLoginFailures('pair', pairId(email, ip)),
    ]);
    const { waitMs, lane } = verdict({ user, ip: addr, pair }, now);
    if (waitMs > 0) return { admitted: false, retryAfter: Math.ceil(waitMs / 1000) };
    const nextUser = counted(user, LOGIN_RULES.emailWindowMs, now);
    if (lane) nextUser.lane_at = now;
    const nextAddr = counted(addr, LOGIN_RULES.addressWindowMs, now);
    const nextPair: LoginFailures = { ...(pair ?? { version: 0, first_at: now }), count: (pair?.count ?? 0) + 1, last_at: now };
    const saved = await deps.store.saveLoginFailures([
      {
        scope: 'user',
        id: email,
        next: nextUser,
        expected: user?.version ?? 0,
        ttlMs: ttl(nextUser.first_at + LOGIN_RULES.emailWindowMs, now),
      },
      {
        scope: 'ip',
        id: ip,
        next: nextAddr,
        expected: addr?.version ?? 0,
        ttlMs: ttl(nextAddr.first_at + LOGIN_RULES.addressWindowMs, now),
      },
      { scope: 'pair', id: pairId(email, ip), next: nextPair, expected: pair?.version ?? 0, ttlMs: ttl(pairUntil(nextPair), now) },
    ]);
    if (saved) return { admitted: true, attempt: { email, ip, ipWindow: nextAddr.first_at, emailWindow: nextUser.first_at } };
  }
  // only a flood of attempts at the same e-mail or address gets here: refuse rather than check uncounted
  deps.log.warn({ ip }, 'portal sign-in not counted after repeated conflicts: refused');
  return { admitted: false, retryAfter: 1 };
}

/** A windowed count with the attempt counted in `window` taken back (null: nothing left to keep). */
function takenBack(f: LoginFailures, window: number, windowMs: number, now: number): LoginFailures | null | undefined {
  if (!live(f, windowMs, now) || f.first_at !== window || f.count <= 0) return undefined;
  return f.count > 1 || f.lane_at !== undefined ? { ...f, count: f.count - 1 } : null;
}

/**
 * The right password: the pair's failures are forgiven and its address remembered as one the user signs in
 * from; the address and the e-mail get back the attempt counted for this check (their other failures stay
 * counted, so one success does not reopen a day's guesses). A lost race is tried again; giving up leaves the
 * attempt counted (safe).
 */
export async function settleSignIn(deps: CoreDeps, attempt: LoginAttempt): Promise<void> {
  const id = pairId(attempt.email, attempt.ip);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const now = deps.clock.now();
    const [user, addr, pair] = await Promise.all([
      deps.store.getLoginFailures('user', attempt.email),
      deps.store.getLoginFailures('ip', attempt.ip),
      deps.store.getLoginFailures('pair', id),
    ]);
    const known: LoginFailures = { version: 0, first_at: now, ...pair, count: 0, signed_in_at: now };
    const changes: { scope: ThrottleScope; id: string; next: LoginFailures | null; expected: number; ttlMs: number }[] = [
      { scope: 'pair', id, next: known, expected: pair?.version ?? 0, ttlMs: ttl(pairUntil(known), now) },
    ];
    const back = (scope: 'user' | 'ip', key: string, f: LoginFailures | undefined, window: number, windowMs: number) => {
      const next = f && takenBack(f, window, windowMs, now);
      if (next !== undefined) changes.push({ scope, id: key, next, expected: f!.version, ttlMs: ttl(f!.first_at + windowMs, now) });
    };
    back('user', attempt.email, user, attempt.emailWindow, LOGIN_RULES.emailWindowMs);
    back('ip', attempt.ip, addr, attempt.ipWindow, LOGIN_RULES.addressWindowMs);
    if (await deps.store.saveLoginFailures(changes)) return;
  }
}

/** Clears an e-mail's count and the pair of one address (an operator's unblock; tests). */
export async function clearLoginFailures(deps: CoreDeps, email: string, ip: string): Promise<void> {
  for (const [scope, id] of [
    ['user', email],
    ['pair', pairId(email, ip)],
  ] as const) {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const f = await deps.store.getLoginFailures(scope, id);
      if (!f || (await deps.store.saveLoginFailures([{ scope, id, next: null, expected: f.version, ttlMs: 0 }]))) break;
    }
  }
}
