import { Router } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import { changePassword } from '../../../core/portal/users.js';
import { GatewayError } from '../../../core/kernel/errors.js';
import { actOnce, takeNotice } from '../../../core/portal/forms.js';
import { sessionOf } from '../../middleware/portal.js';
import { renderPortal } from '../../render/portal.js';
import { fieldErrors, passwordForm } from '../../schemas/portal.js';
import { portalT } from '../../../i18n/portal.js';
import { clientAddress } from '../../client-address.js';

/** The notice a password change leaves: a message key, worded in the language of the page that shows it. */
const PASSWORD_CHANGED = 'password.changed';

/** The signed-in user's own password. */
export function portalPasswordRouter(deps: CoreDeps): Router {
  const router = Router();

  router.get('/portal/account/password', async (req, res) => {
    const notice = await takeNotice(deps, sessionOf(res), req.originalUrl);
    const text = notice?.ok && notice.result === PASSWORD_CHANGED ? portalT(res.locals.portalLang as string, PASSWORD_CHANGED) : undefined;
    renderPortal(res, deps.timezone, 'password', { active: 'password', notice: notice && text ? { ...notice, text } : notice });
  });

  router.post('/portal/account/password', async (req, res) => {
    const parsed = passwordForm.safeParse(req.body);
    if (!parsed.success)
      return renderPortal(res, deps.timezone, 'password', { active: 'password', errors: fieldErrors(parsed.error) }, 400);
    const session = sessionOf(res);
    try {
      const outcome = await actOnce(deps, session, (req.body as Record<string, unknown>)._csrf, req.path, async () => {
        await changePassword(deps, session, parsed.data.current_password, parsed.data.new_password, clientAddress(req) ?? '');
        return { location: '/portal/account/password', notice: { ok: true, result: PASSWORD_CHANGED } };
      });
      res.redirect(303, outcome.location);
    } catch (err) {
      if (err instanceof GatewayError && err.field) {
        const message = err.message.slice(err.field.length + 2);
        return renderPortal(res, deps.timezone, 'password', { active: 'password', errors: { [err.field]: message } }, err.status);
      }
      throw err;
    }
  });

  return router;
}
