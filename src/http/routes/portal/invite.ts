import { Router, type Request, type Response } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import { GatewayError } from '../../../core/kernel/errors.js';
import { acceptInvitation, openInvitation } from '../../../core/portal/invitations.js';
import { renderPortal } from '../../render/portal.js';

const params = (req: Request) => ({ merchantId: String(req.params.merchantId ?? ''), token: String(req.params.token ?? '') });

/**
 * GET/POST /portal/invite/:merchantId/:token: an invited user sets their password (docs/operators.md). The
 * link's token is the secret: one use, 24 hours; no session is needed and none is opened.
 */
export function portalInviteRouter(deps: CoreDeps): Router {
  const router = Router();
  const path = '/portal/invite/:merchantId/:token';
  const show = async (req: Request, res: Response, status: number, errors: Record<string, string> = {}) => {
    const { merchantId, token } = params(req);
    const found = await openInvitation(deps, merchantId, token);
    res.setHeader('Referrer-Policy', 'no-referrer');
    renderPortal(
      res,
      deps.timezone,
      'invite',
      { open: found !== undefined, email: found?.user.email ?? '', action: req.originalUrl.split('?')[0], errors },
      found ? status : 404,
    );
  };
  router.get(path, (req, res) => show(req, res, 200));
  router.post(path, async (req, res) => {
    const { merchantId, token } = params(req);
    const body = req.body as Record<string, unknown>;
    const password = typeof body.new_password === 'string' ? body.new_password : '';
    try {
      await acceptInvitation(deps, merchantId, token, password);
    } catch (err) {
      if (err instanceof GatewayError && err.field === 'new_password') return show(req, res, 400, { new_password: err.message });
      throw err;
    }
    res.redirect(303, '/portal/login');
  });
  return router;
}
