import type { NextFunction, Request, Response } from 'express';
import { serialize } from 'cookie';
import type { CoreDeps } from '../../core/ports/deps.js';
import { isPortalLanguage, negotiatePortal } from '../../i18n/portal.js';
import { readCookie } from './portal.js';

/** The user's own choice of language, kept a year (a preference, not a secret: readable by nothing but the portal). */
export const LANG_COOKIE = 'portal_lang';
const YEAR_S = 365 * 24 * 3600;

/**
 * The portal page's language (res.locals.portalLang): `?lang=` (one of the portal's languages, then kept in
 * the portal_lang cookie), else that cookie, else Accept-Language, else English. Sign-in and error pages
 * included, so it runs before the session check.
 */
export function portalLanguage(deps: CoreDeps) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const asked = req.query.lang;
    const kept = readCookie(req, LANG_COOKIE);
    if (isPortalLanguage(asked) && asked !== kept) {
      res.append(
        'Set-Cookie',
        serialize(LANG_COOKIE, asked, {
          httpOnly: true,
          sameSite: 'lax',
          secure: req.secure || deps.baseUrl.startsWith('https:'),
          path: '/portal',
          maxAge: YEAR_S,
        }),
      );
    }
    res.locals.portalLang = negotiatePortal(
      isPortalLanguage(asked) ? asked : undefined,
      isPortalLanguage(kept) ? kept : undefined,
      req.headers['accept-language'],
    );
    next();
  };
}
