import type { CoreDeps } from '../ports/deps.js';
import type { PortalUser } from '../merchants/directory.js';
import { GatewayError, invalidField } from '../kernel/errors.js';
import { hashPassword, verifyPassword } from './password.js';
import { clearLoginFailures, loginBlockedFor, recordLoginFailure } from './throttle.js';
import { openSession, type PortalSession } from './sessions.js';
import { recordAction } from './audit.js';
import type { PortalPassword } from './portal-records.js';

export type { PortalPassword };

export type SignIn =
  | { ok: true; cookie: string; session: PortalSession }
  | { ok: false; reason: 'wrong' }
  | { ok: false; reason: 'throttled'; retryAfter: number };

/** The hash that counts for a user now: their own new password, else the merchants file's. */
async function currentHash(deps: CoreDeps, user: PortalUser): Promise<{ hash: string; version: number }> {
  const own = await deps.store.getPortalPassword(user.merchant_id, user.email);
  return own ? { hash: own.password_hash, version: own.version } : { hash: user.password_hash, version: 0 };
}

/**
 * Checks an e-mail and password. Blocked e-mails and addresses are refused before the password is looked at;
 * an unknown e-mail costs the same hashing time as a known one and counts as a failure the same way.
 */
export async function signIn(deps: CoreDeps, emailInput: string, password: string, ip: string): Promise<SignIn> {
  const email = emailInput.trim().toLowerCase();
  const wait = await loginBlockedFor(deps, email, ip);
  if (wait > 0) return { ok: false, reason: 'throttled', retryAfter: wait };
  const user = deps.merchants.portalUser(email);
  const hash = user ? (await currentHash(deps, user)).hash : undefined;
  const good = await verifyPassword(password, hash);
  if (!user || !good) {
    await recordLoginFailure(deps, email, ip);
    deps.log.warn({ ip, known_user: user !== undefined }, 'portal sign-in refused');
    return { ok: false, reason: 'wrong' };
  }
  await clearLoginFailures(deps, email);
  const { cookie, session } = await openSession(deps, user);
  deps.log.info({ merchant_id: user.merchant_id, user: email, role: user.role }, 'portal sign-in');
  return { ok: true, cookie, session };
}

export const MIN_PASSWORD_LENGTH = 12;

/** A user changes their own password: the current one is checked again, the new one must be long enough. */
export async function changePassword(deps: CoreDeps, session: PortalSession, current: string, next: string, ip: string): Promise<void> {
  const user = deps.merchants.portalUser(session.email);
  if (!user || user.merchant_id !== session.merchant_id) throw new GatewayError('PORTAL_FORBIDDEN', 'this user no longer exists');
  if ((await loginBlockedFor(deps, user.email, ip)) > 0) {
    throw new GatewayError('LOGIN_THROTTLED', 'current_password: too many wrong passwords; try again later', 'current_password');
  }
  const { hash, version } = await currentHash(deps, user);
  if (!(await verifyPassword(current, hash))) {
    await recordLoginFailure(deps, user.email, ip);
    throw invalidField('current_password', 'is not your current password');
  }
  if (next.length < MIN_PASSWORD_LENGTH) throw invalidField('new_password', `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (next.length > 200) throw invalidField('new_password', 'must be at most 200 characters');
  const record: PortalPassword = { version: 0, email: user.email, password_hash: await hashPassword(next), changed_at: deps.clock.now() };
  if (!(await deps.store.commit({ merchantId: user.merchant_id, portalPasswords: [{ next: record, expected: version }] }))) {
    throw new GatewayError('STORE_UNAVAILABLE', 'the password was changed at the same moment elsewhere; try again');
  }
  await recordAction(deps, session, {
    account_id: '',
    action: 'password_change',
    subject: user.email,
    detail: {},
    ok: true,
    result: 'password changed',
  });
}
