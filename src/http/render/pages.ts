import type { Response } from 'express';
import type { Account } from '../../core/merchants/directory.js';
import { originOf } from '../../core/checkout/result.js';

/**
 * Headers of the hosted pages (card, challenge, result, notices): scripts only from our own files (no
 * inline script anywhere), and framing only by the account's storefront_domains. Helmet's X-Frame-Options
 * is dropped here, because frame-ancestors says who may frame these pages and the two must not disagree.
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
    ].join('; '),
  );
  if (ancestors.length > 0) res.removeHeader('X-Frame-Options');
  else res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

export interface NoticeOptions {
  status: number;
  title: string;
  message: string;
  /** origin the page may tell its parent frame about its size */
  parentOrigin?: string | undefined;
}

/** A plain hosted page that explains why the checkout cannot go on (expired, changed, unknown). */
export function renderNotice(res: Response, baseUrl: string, account: Account | undefined, n: NoticeOptions): void {
  hostedPageHeaders(res, baseUrl, account);
  res.status(n.status).render('notice', { baseUrl, title: n.title, message: n.message, parentOrigin: n.parentOrigin ?? '' });
}

export const NOTICES = {
  unknown: {
    status: 404,
    title: 'Checkout not found',
    message: 'This checkout link has expired or does not exist. Please return to the shop and start again.',
  },
  expired: {
    status: 410,
    title: 'Checkout expired',
    message: 'This checkout has expired, and nothing was charged. Please return to the shop and start again.',
  },
  taken: {
    status: 409,
    title: 'Order already paid',
    message:
      'This order number was already paid with different order details, so this checkout cannot go on. Nothing was charged. Please return to the shop.',
  },
  /** the stored order no longer passes today's checks (a rule became stricter after the session was opened) */
  outdated: {
    status: 422,
    title: 'Checkout can no longer be paid',
    message:
      'This checkout no longer meets the payment rules, so it cannot go on. Nothing was charged. Please return to the shop and start again.',
  },
  changed: {
    status: 400,
    title: 'Order details do not match',
    message:
      'The order details sent with this checkout differ from the order the shop registered, so it cannot go on. Nothing was charged.',
  },
} satisfies Record<string, NoticeOptions>;
