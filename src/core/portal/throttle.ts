import type { CoreDeps } from '../ports/deps.js';
import type { LoginFailures, ThrottleScope } from './portal-records.js';

export type { LoginFailures, ThrottleScope };

/** 5 wrong passwords for one e-mail, or 20 from one address, within 15 minutes block that scope until the window ends. */
export const LOGIN_LIMITS: Readonly<Record<ThrottleScope, number>> = { user: 5, ip: 20 };
export const LOGIN_WINDOW_MS = 15 * 60_000;

const live = (f: LoginFailures | undefined, now: number): f is LoginFailures => f !== undefined && now - f.first_at < LOGIN_WINDOW_MS;

/** Seconds until sign-in is allowed again, or 0 when neither the e-mail nor the address is blocked. */
export async function loginBlockedFor(deps: CoreDeps, email: string, ip: string): Promise<number> {
  const now = deps.clock.now();
  let wait = 0;
  for (const [scope, id] of [
    ['user', email],
    ['ip', ip],
  ] as const) {
    const f = await deps.store.getLoginFailures(scope, id);
    if (live(f, now) && f.count >= LOGIN_LIMITS[scope]) wait = Math.max(wait, Math.ceil((f.first_at + LOGIN_WINDOW_MS - now) / 1000));
  }
  return wait;
}

/** Counts one failed sign-in against the e-mail and the address (a versioned write: concurrent failures all count). */
export async function recordLoginFailure(deps: CoreDeps, email: string, ip: string): Promise<void> {
  for (const [scope, id] of [
    ['user', email],
    ['ip', ip],
  ] as const) {
    for (let i = 0; i < 10; i++) {
      const now = deps.clock.now();
      const f = await deps.store.getLoginFailures(scope, id);
      const next: LoginFailures = live(f, now) ? { ...f, count: f.count + 1 } : { version: 0, count: 1, first_at: now };
      if (await deps.store.saveLoginFailures(scope, id, next, f?.version ?? 0, LOGIN_WINDOW_MS)) break;
    }
  }
}

/** A successful sign-in clears the e-mail's count (the address keeps its own). */
export async function clearLoginFailures(deps: CoreDeps, email: string): Promise<void> {
  const f = await deps.store.getLoginFailures('user', email);
  if (f) await deps.store.saveLoginFailures('user', email, null, f.version, 0);
}
