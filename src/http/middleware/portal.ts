import type { NextFunction, Request, Response } from 'express';
import { parse as parseCookies, serialize } from 'cookie';
import type { CoreDeps } from '../../core/ports/deps.js';
import { GatewayError } from '../../core/kernel/errors.js';
import { resumeSession, type PortalSession } from '../../core/portal/sessions.js';
import { issueFormToken, readFormToken } from '../../core/portal/forms.js';

export const SESSION_COOKIE = 'portal_session';
/** the sign-in form's own CSRF token (double submit: cookie and hidden field), before any session exists */
export const LOGIN_COOKIE = 'portal_login';

/** Strict headers of every portal page: own scripts and styles only (none inline), no framing, nothing cached. */
export function portalHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'same-origin');
  next();
}

/** `Secure` when the gateway is reached over https (BASE_URL https, or https seen through a trusted proxy). */
export function setPortalCookie(deps: CoreDeps, req: Request, res: Response, name: string, value: string, clear = false): void {
  res.append(
    'Set-Cookie',
    serialize(name, value, {
      httpOnly: true,
      sameSite: 'lax',
      secure: req.secure || deps.baseUrl.startsWith('https:'),
      path: '/portal',
      ...(clear ? { maxAge: 0 } : {}),
    }),
  );
}

export function readCookie(req: Request, name: string): string | undefined {
  return parseCookies(req.headers.cookie ?? '')[name];
}

export function sessionOf(res: Response): PortalSession {
  const s = res.locals.portalSession as PortalSession | undefined;
  if (!s) throw new GatewayError('PORTAL_FORBIDDEN', 'not signed in');
  return s;
}

/** Each form of a page gets its own one-time token (`_csrf`), signed with the session's secret. */
export function formTokenFactory(deps: CoreDeps, session: PortalSession): () => string {
  return () => issueFormToken(session, deps.clock.now());
}

/**
 * Every portal page but sign-in: a live session, or the sign-in page (a GET is sent there; a POST without a
 * session is refused). Every POST must carry a form token this session issued (`_csrf`); the actions then
 * spend it once (core/portal/forms.ts).
 */
export function requirePortalSession(deps: CoreDeps) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const cookie = readCookie(req, SESSION_COOKIE);
    const session = await resumeSession(deps, cookie);
    if (!session) {
      if (cookie) setPortalCookie(deps, req, res, SESSION_COOKIE, '', true);
      if (req.method === 'GET') return res.redirect(303, `/portal/login${cookie ? '?expired=1' : ''}`);
      throw new GatewayError('PORTAL_FORBIDDEN', 'not signed in, or the session has ended; sign in again');
    }
    res.locals.portalSession = session;
    // every page says so while the merchant is suspended (docs/operators.md)
    res.locals.merchantSuspended = deps.merchants.accountsOf(session.merchant_id)[0]?.merchant_status === 'suspended';
    res.locals.formToken = formTokenFactory(deps, session);
    if (req.method === 'POST' && !readFormToken(session, (req.body as Record<string, unknown>)._csrf, deps.clock.now())) {
      deps.log.warn({ merchant_id: session.merchant_id, user: session.email, path: req.path }, 'portal form without a valid CSRF token');
      throw new GatewayError('CSRF_FAILED', '_csrf: the form is missing its security token or it is out of date; reload the page', '_csrf');
    }
    next();
  };
}
