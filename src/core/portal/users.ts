import type { CoreDeps } from '../ports/deps.js';
import { GatewayError, invalidField } from '../kernel/errors.js';
import { hashPassword, verifyPassword } from './password.js';
import { admitLoginAttempt, settleSignIn } from './throttle.js';
import { SESSION_IDLE_MS, openSession, type PortalSession } from './sessions.js';
import { costForNewPassword, currentHash, decoyFor, passwordTag } from './credentials.js';
import { recordAction } from './audit.js';
import type { PortalPassword } from '../records/portal-records.js';

export type { PortalPassword };

export type SignIn =
  | { ok: true; cookie: string; session: PortalSession }
  | { ok: false; reason: 'wrong' }
  | { ok: false; reason: 'throttled'; retryAfter: number };

/**
 * Checks an e-mail and password. Each check is counted as a failed sign-in before the password is looked at
 * (and taken back when it was right), so guesses sent at once are throttled exactly like guesses sent one by
 * one; blocked e-mails and addresses are refused without a check. An unknown e-mail reads the store and
 * hashes at the users' cost like a known one, and counts the same way.
 */
export async function signIn(deps: CoreDeps, emailInput: string, password: string, ip: string): Promise<SignIn> {
  const email = emailInput.trim().toLowerCase();
  const admission = await admitLoginAttempt(deps, email, ip);
  if (!admission.admitted) return { ok: false, reason: 'throttled', retryAfter: admission.retryAfter };
  const user = deps.merchants.portalUser(email);
  const hash = user ? (await currentHash(deps, user)).hash : await decoyRead(deps, email);
  const good = await verifyPassword(password, hash);
  if (!user || !good) {
    deps.log.warn({ ip, known_user: user !== undefined }, 'portal sign-in refused');
    return { ok: false, reason: 'wrong' };
  }
  await settleSignIn(deps, admission.attempt);
  const { cookie, session } = await openSession(deps, user, hash);
  deps.log.info({ merchant_id: user.merchant_id, user: email, role: user.role }, 'portal sign-in');
  return { ok: true, cookie, session };
}

/** For an unknown e-mail: the same store read a user's sign-in makes (it finds nothing), then the decoy. */
async function decoyRead(deps: CoreDeps, email: string): Promise<string> {
  await deps.store.getPortalPassword(deps.merchants.merchantIds()[0] ?? '', email);
  return decoyFor(deps.merchants);
}

export const MIN_PASSWORD_LENGTH = 12;

/**
 * A user changes their own password: the current one is checked again (counted like a sign-in), the new one
 * must be long enough. It is hashed at the cost of the user's hash in the merchants file. The same step that
 * stores it moves this session onto it, so every other session of the user ends at its next request.
 */
export async function changePassword(deps: CoreDeps, session: PortalSession, current: string, next: string, ip: string): Promise<void> {
  const user = deps.merchants.portalUser(session.email);
  if (!user || user.merchant_id !== session.merchant_id) throw new GatewayError('PORTAL_FORBIDDEN', 'this user no longer exists');
  const admission = await admitLoginAttempt(deps, user.email, ip);
  if (!admission.admitted) {
    throw new GatewayError('LOGIN_THROTTLED', 'current_password: too many wrong passwords; try again later', 'current_password');
  }
  const { hash, version } = await currentHash(deps, user);
  if (!(await verifyPassword(current, hash))) throw invalidField('current_password', 'is not your current password');
  await settleSignIn(deps, admission.attempt);
  if (next.length < MIN_PASSWORD_LENGTH) throw invalidField('new_password', `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (next.length > 200) throw invalidField('new_password', 'must be at most 200 characters');
  const record: PortalPassword = {
    version: 0,
    email: user.email,
    password_hash: await hashPassword(next, costForNewPassword(user)),
    changed_at: deps.clock.now(),
  };
  // this session follows the new hash in the same step; a lost race with its own renewal is tried again
  for (let round = 0; ; round++) {
    const live = await deps.store.getPortalSession(session.merchant_id, session.id);
    if (!live) throw new GatewayError('PORTAL_FORBIDDEN', 'not signed in, or the session has ended; sign in again');
    const moved = { ...live, password_tag: passwordTag(record.password_hash) };
    const saved = await deps.store.commit({
      merchantId: user.merchant_id,
      portalPasswords: [{ next: record, expected: version }],
      portalSessions: [{ id: live.id, next: moved, expected: live.version, ttlMs: SESSION_IDLE_MS }],
    });
    if (saved) break;
    const now = await currentHash(deps, user);
    if (now.version !== version || round >= 10) {
      throw new GatewayError('STORE_UNAVAILABLE', 'the password was changed at the same moment elsewhere; try again');
    }
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
