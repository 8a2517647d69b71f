import { Router, type Request, type Response } from 'express';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { CoreDeps } from '../../../core/ports/deps.js';
import { signIn } from '../../../core/portal/users.js';
import { closeSession, resumeSession } from '../../../core/portal/sessions.js';
import { readFormToken } from '../../../core/portal/forms.js';
import { GatewayError } from '../../../core/kernel/errors.js';
import { LOGIN_COOKIE, SESSION_COOKIE, readCookie, setPortalCookie } from '../../middleware/portal.js';
import { renderPortal } from '../../render/portal.js';
import { fieldErrors, loginForm } from '../../schemas/portal.js';
import { portalT, type PortalMessageKey } from '../../../i18n/portal.js';
import { clientAddress } from '../../client-address.js';

/** A message in the page's language (portal-language.ts chose it). */
const t = (res: Response, key: PortalMessageKey, params?: Record<string, string | number>): string =>
  portalT(res.locals.portalLang as string, key, params);

function showLogin(deps: CoreDeps, req: Request, res: Response, status: number, locals: Record<string, unknown>): void {
  const token = randomBytes(24).toString('base64url');
  setPortalCookie(deps, req, res, LOGIN_COOKIE, token);
  renderPortal(res, deps.timezone, 'login', { loginToken: token, errorsInPanel: true, ...locals }, status);
}

function sameToken(a: string | undefined, b: unknown): boolean {
  if (!a || typeof b !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** GET/POST /portal/login and POST /portal/logout. */
export function portalLoginRouter(deps: CoreDeps): Router {
  const router = Router();

  router.get('/portal/login', (req, res) => {
    showLogin(deps, req, res, 200, req.query.expired ? { notice: { ok: false, text: t(res, 'login.expired') } } : {});
  });

  router.post('/portal/login', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const values = { email: typeof body.email === 'string' ? body.email : '' };
    if (!sameToken(readCookie(req, LOGIN_COOKIE), body._csrf)) {
      deps.log.warn({ ip: clientAddress(req) }, 'portal sign-in without its CSRF token');
      return showLogin(deps, req, res, 403, { values, errors: { form: t(res, 'login.form_expired') } });
    }
    const parsed = loginForm.safeParse(body);
    if (!parsed.success) return showLogin(deps, req, res, 400, { values, errors: fieldErrors(parsed.error) });
    const result = await signIn(deps, parsed.data.email, parsed.data.password, clientAddress(req) ?? '');
    if (result.ok) {
      setPortalCookie(deps, req, res, LOGIN_COOKIE, '', true);
      setPortalCookie(deps, req, res, SESSION_COOKIE, result.cookie);
      return res.redirect(303, '/portal');
    }
    if (result.reason === 'throttled') {
      res.setHeader('Retry-After', String(result.retryAfter));
      const minutes = Math.max(1, Math.ceil(result.retryAfter / 60));
      return showLogin(deps, req, res, 429, { values, errors: { form: t(res, 'login.throttled', { minutes }) } });
    }
    return showLogin(deps, req, res, 401, { values, errors: { form: t(res, 'login.wrong') } });
  });

  // signing out twice (a double click) answers what the first did: the sign-in page
  router.post('/portal/logout', async (req, res) => {
    const session = await resumeSession(deps, readCookie(req, SESSION_COOKIE));
    if (session) {
      if (!readFormToken(session, (req.body as Record<string, unknown>)._csrf, deps.clock.now())) {
        throw new GatewayError(
          'CSRF_FAILED',
          '_csrf: the form is missing its security token or it is out of date; reload the page',
          '_csrf',
        );
      }
      await closeSession(deps, session);
    }
    setPortalCookie(deps, req, res, SESSION_COOKIE, '', true);
    res.redirect(303, '/portal/login');
  });

  return router;
}
