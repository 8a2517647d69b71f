import { Router } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import { HOME_RANGES, homeFigures, type HomeRange } from '../../../core/home/home.js';
import { sessionOf } from '../../middleware/portal.js';
import { portalHelpers, renderPortal } from '../../render/portal.js';
import { dayLabel, homeView, isolate, sentenceDay } from '../../render/home-view.js';
import { portalT } from '../../../i18n/portal.js';

/** GET /portal: the merchant's business at a glance (docs/portal.md#home), over 7, 30 or 90 days. */
export function portalHomeRouter(deps: CoreDeps): Router {
  const router = Router();

  router.get('/portal', async (req, res) => {
    const session = sessionOf(res);
    const lang = res.locals.portalLang as string;
    const asked = typeof req.query.days === 'string' ? req.query.days : '30';
    const range = HOME_RANGES.find((r) => String(r) === asked);
    const common = { active: 'home', ranges: HOME_RANGES, values: { days: asked } };
    if (range === undefined) {
      const errors = { days: portalT(lang, 'home.days_invalid', { allowed: HOME_RANGES.join(', ') }) };
      return renderPortal(res, deps.timezone, 'home', { ...common, range: 30, errors, currencies: [], first: '', last: '' }, 400);
    }
    const accounts = deps.merchants.accountsOf(session.merchant_id).map((a) => a.account_id);
    const { days, series } = await homeFigures(deps, session.merchant_id, accounts, range as HomeRange);
    const helpers = portalHelpers(deps.timezone, lang);
    renderPortal(res, deps.timezone, 'home', {
      ...common,
      range,
      currencies: homeView(series, helpers),
      first: dayLabel(days[0]!),
      last: dayLabel(days[days.length - 1]!),
      isolate: (text: string) => isolate(helpers.dir, sentenceDay(text)),
    });
  });

  return router;
}
