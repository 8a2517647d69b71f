import type { Request, Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/records/directory.js';
import { originOf } from '../../core/checkout/result.js';
import { returnOrigins } from '../../core/merchants/return-origins.js';
import { dirOf, negotiate, t, type MessageKey } from '../../i18n/index.js';
import { assetTag, brandKey, pageAssets, type Logo } from './assets.js';

/**
 * Headers of the hosted pages (card, challenge, result, notices): scripts and styles only from our own
 * files, each with Subresource Integrity, no inline script or style (no 'unsafe-inline'), and framing only
 * by the account's storefront_domains. Helmet's X-Frame-Options is dropped where framing is allowed, because
 * frame-ancestors says who may frame these pages and the two must not disagree.
 */
export function hostedPageHeaders(res: Response, baseUrl: string, account: Account | undefined): void {
  const self = ["'self'", originOf(baseUrl)].filter(Boolean).join(' ');
  const ancestors = (account?.storefront_domains ?? []).map(originOf).filter((o): o is string => o !== undefined);
  res.setHeader(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      `script-src ${self}`,
      `style-src ${self}`,
      `img-src ${self} data:`,
      `connect-src ${self}`,
      `form-action ${self}`,
      `frame-ancestors ${ancestors.length > 0 ? ancestors.join(' ') : "'none'"}`,
      "base-uri 'none'",
      "object-src 'none'",
    ].join('; '),
  );
  if (ancestors.length > 0) res.removeHeader('X-Frame-Options');
  else res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Content-Language', String(res.locals.lang ?? 'en'));
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** docs/checkout.md: the order's default_lang, else its browser_lang, else the browser's Accept-Language, else English. */
export function shopperLang(req: Request, order?: Record<string, unknown>): string {
  return negotiate(text(order?.default_lang), text(order?.browser_lang), req.get('accept-language'));
}

/** The name the pages show for the account: its branding display name, else the merchant's name. */
export function displayName(account: Account): string {
  return account.branding.display_name ?? account.merchant_name;
}

/**
 * Headers and the locals every hosted view uses: the language (`lang`, `dir`, `t`), `asset(name)` (a tag with
 * its integrity), and the account's branding (accent class, logo, display name).
 */
export function preparePage(res: Response, deps: CoreDeps, account: Account | undefined, lang: string): void {
  const assets = pageAssets(deps.merchants);
  const key = account ? brandKey(account) : '';
  const logo = account ? assets.logos.get(key) : undefined;
  const operatorLogo = res.app.locals.operatorLogo as Logo | undefined;
  Object.assign(res.locals, {
    lang,
    dir: dirOf(lang),
    t: (k: MessageKey, params?: Record<string, string | number>) => t(lang, k, params),
    asset: (name: string) => assetTag(assets, deps.baseUrl, name),
    baseUrl: deps.baseUrl,
    brandClass: account?.branding.accent_color ? `brand-${key}` : '',
    logoUrl: logo ? deps.baseUrl + logo.path : '',
    brandName: account ? displayName(account) : '',
    parentOrigin: '',
    ...trustLine(res, account, lang),
    // served from the gateway's own origin (img-src 'self'), as every file a hosted page loads
    operatorLogoUrl: operatorLogo ? deps.baseUrl + operatorLogo.path : '',
  });
  hostedPageHeaders(res, deps.baseUrl, account);
}

/**
 * The footer's trust line: who is paid and who runs the page (OPERATOR_NAME), and the encryption claimed only
 * when this request did come over https (req.secure: behind a proxy, TRUST_PROXY decides whether its
 * X-Forwarded-Proto is believed).
 */
function trustLine(
  res: Response,
  account: Account | undefined,
  lang: string,
): { trustText: string; tlsText: string; operatorName: string } {
  const operator = String(res.app.locals.operatorName ?? '');
  const trustText = account
    ? t(lang, 'page.trust', { merchant: displayName(account), operator })
    : t(lang, 'page.trust_operator', { operator });
  return { trustText, tlsText: res.req.secure ? t(lang, 'page.tls') : '', operatorName: operator };
}

export interface NoticeOptions {
  status: number;
  /** heading; its text is the catalogue's `<key>_detail` */
  key: 'notice.unknown' | 'notice.expired' | 'notice.taken' | 'notice.outdated' | 'notice.changed';
  /** origin the page may tell its parent frame about its size */
  parentOrigin?: string | undefined;
  /** the shop the page links back to: one of the account's own return origins, never one taken from the request alone */
  backTo?: { origin: string; name: string } | undefined;
}

/** The way back from a checkout's notice: the origin of its cancel address (checked against the account's when the checkout was made). */
export function shopOf(account: Account, session: { cancel_url: string; return_url: string }): NoticeOptions['backTo'] {
  const origin = originOf(session.cancel_url) ?? originOf(session.return_url);
  return origin && returnOrigins(account).has(origin) ? { origin, name: displayName(account) } : undefined;
}

/**
 * The way back from an unknown checkout: the shop the browser says the shopper came from (Referer), only when
 * it is a return origin of an account of the merchant named in the address; otherwise none, and the page
 * offers the browser's own back (public/notice.js).
 */
export function refererShop(deps: CoreDeps, req: Request, merchantId: unknown): NoticeOptions['backTo'] {
  const origin = originOf(req.get('referer') ?? '');
  if (!origin || typeof merchantId !== 'string') return undefined;
  const account = deps.merchants.all().find((a) => a.merchant_id === merchantId && returnOrigins(a).has(origin));
  return account ? { origin, name: displayName(account) } : undefined;
}

/** "Checkout not found", with the way back the request allows (refererShop). */
export function renderUnknown(res: Response, deps: CoreDeps, req: Request, merchantId: unknown, lang = shopperLang(req)): void {
  renderNotice(res, deps, undefined, lang, { ...NOTICES.unknown, backTo: refererShop(deps, req, merchantId) });
}

/** A plain hosted page that explains why the checkout cannot go on (expired, changed, unknown). */
export function renderNotice(res: Response, deps: CoreDeps, account: Account | undefined, lang: string, n: NoticeOptions): void {
  preparePage(res, deps, account, lang);
  res.status(n.status).render('notice', {
    title: t(lang, n.key),
    message: t(lang, `${n.key}_detail`),
    parentOrigin: n.parentOrigin ?? '',
    backUrl: n.backTo ? `${n.backTo.origin}/` : '',
    backText: n.backTo ? t(lang, 'notice.back_to', { merchant: n.backTo.name }) : t(lang, 'notice.back'),
  });
}

export const NOTICES = {
  unknown: { status: 404, key: 'notice.unknown' },
  expired: { status: 410, key: 'notice.expired' },
  taken: { status: 409, key: 'notice.taken' },
  /** the stored order no longer passes today's checks (a rule became stricter after the session was opened) */
  outdated: { status: 422, key: 'notice.outdated' },
  changed: { status: 400, key: 'notice.changed' },
  /** the merchant was suspended while the page was open: "this payment can no longer be made" */
  suspended: { status: 403, key: 'notice.outdated' },
} satisfies Record<string, NoticeOptions>;
