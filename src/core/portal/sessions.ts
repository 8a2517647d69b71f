import { createHash, randomBytes } from 'node:crypto';
import type { CoreDeps } from '../ports/deps.js';
import type { PortalRole } from '../records/directory.js';
import type { PortalSession } from '../records/portal-records.js';
import { currentHash, passwordTag } from './credentials.js';

export type { PortalSession };

/** docs/portal.md: a session ends after 30 minutes without a request. */
export const SESSION_IDLE_MS = 30 * 60_000;
/** last_seen is written again at most this often (not on every page view) */
const TOUCH_EVERY_MS = 60_000;

const sessionId = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Cookie value: `<merchant_id>.<token>`; the merchant id picks the store slot, the token is the secret. */
function parseCookie(value: string): { merchantId: string; token: string } | undefined {
  const m = /^([^.]{1,7})\.([A-Za-z0-9_-]{43})$/.exec(value);
  return m ? { merchantId: m[1]!, token: m[2]! } : undefined;
}

/** Opens a session for a user who just proved their password; returns the cookie value. */
export async function openSession(
  deps: CoreDeps,
  user: { merchant_id: string; email: string; role: PortalRole },
  hash: string,
): Promise<{ cookie: string; session: PortalSession }> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const session: PortalSession = {
    version: 0,
    id: sessionId(token),
    merchant_id: user.merchant_id,
    email: user.email,
    role: user.role,
    csrf: randomBytes(32).toString('base64url'),
    password_tag: passwordTag(hash),
    created_at: now,
    last_seen: now,
  };
  const ok = await deps.store.commit({
    merchantId: user.merchant_id,
    portalSessions: [{ id: session.id, next: session, expected: 0, ttlMs: SESSION_IDLE_MS }],
  });
  if (!ok) throw new Error('a fresh session id collided');
  return { cookie: `${user.merchant_id}.${token}`, session: { ...session, version: 1 } };
}

/**
 * The live session of a cookie, its idle time renewed; undefined when unknown, ended, idle for 30 minutes
 * (the store's expiry and the clock agree; the clock decides, so tests need not wait), or opened with a
 * password that is no longer the user's (or by a user no longer in the merchants file).
 */
export async function resumeSession(deps: CoreDeps, cookie: string | undefined): Promise<PortalSession | undefined> {
  const parsed = cookie ? parseCookie(cookie) : undefined;
  if (!parsed) return undefined;
  const id = sessionId(parsed.token);
  const s = await deps.store.getPortalSession(parsed.merchantId, id);
  if (!s || s.merchant_id !== parsed.merchantId) return undefined;
  const now = deps.clock.now();
  if (now - s.last_seen >= SESSION_IDLE_MS || !(await passwordStillCurrent(deps, s))) {
    await closeSession(deps, s);
    return undefined;
  }
  if (now - s.last_seen < TOUCH_EVERY_MS) return s;
  const next = { ...s, last_seen: now };
  // a lost race means another request renewed it at the same moment: either way it is alive
  await deps.store.commit({ merchantId: s.merchant_id, portalSessions: [{ id, next, expected: s.version, ttlMs: SESSION_IDLE_MS }] });
  return { ...next, version: s.version + 1 };
}

async function passwordStillCurrent(deps: CoreDeps, s: PortalSession): Promise<boolean> {
  const user = deps.merchants.portalUser(s.email);
  if (!user || user.merchant_id !== s.merchant_id) return false;
  return s.password_tag === passwordTag((await currentHash(deps, user)).hash);
}

export async function closeSession(deps: CoreDeps, s: PortalSession): Promise<void> {
  await deps.store.commit({ merchantId: s.merchant_id, portalSessions: [{ id: s.id, next: null, expected: -1, ttlMs: 0 }] });
}
