import type { Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/records/directory.js';
import { hostedUrls, type CheckoutSession } from '../../core/records/session.js';
import { parentOrigin } from '../../core/checkout/result.js';
import { acceptedBrands, BRAND_NAMES } from '../../core/records/branding.js';
import { clientMessages, formatAmount, formatTime, t } from '../../i18n/index.js';
import { parseItems } from '../schemas/payment-request.js';
import { BROWSER_FIELDS, type CardFormErrors } from '../schemas/card-form.js';
import { displayName, preparePage } from './pages.js';
import { BRAND_MARKS } from './brand-marks.js';

const s = (v: unknown): string => (typeof v === 'string' ? v : '');

/** What the card page shows of the order: merchant, items, amount, in the shopper's language. */
function orderSummary(lang: string, account: Account, session: CheckoutSession) {
  const r = session.request;
  return {
    merchantName: displayName(account),
    orderNo: session.order_no,
    amountText: formatAmount(lang, session.amount, session.currency),
    items: parseItems(s(r.items)).map((it) => ({
      name: it.name,
      quantity: it.quantity,
      total: formatAmount(lang, it.unitPrice * it.quantity, session.currency),
    })),
  };
}

/** The hosted card page, with the problems of a refused form shown next to their fields and in a summary. */
export interface CardPageOptions {
  account: Account;
  session: CheckoutSession;
  lang: string;
  /** the form's values shown again (never the security code; the number only while it is itself at fault) */
  values: Record<string, string>;
  errors?: CardFormErrors;
  status?: number;
  /** the attempt whose decline this page answers with another card (the form carries it back) */
  retryOf?: number;
}

export function renderCard(deps: CoreDeps, res: Response, options: CardPageOptions): void {
  const { account, session, lang, values, errors = {}, status = 200, retryOf } = options;
  preparePage(res, deps, account, lang);
  const brands = acceptedBrands(account.card_brands).map((code) => ({ code, name: BRAND_NAMES[code] }));
  const texts = Object.fromEntries(Object.entries(errors).map(([field, p]) => [field, t(lang, p.key, p.params)]));
  res.status(status).render('card', {
    parentOrigin: parentOrigin(account, session.return_url) ?? '',
    order: orderSummary(lang, account, session),
    urls: hostedUrls(deps.baseUrl, session.merchant_id, session.session_id),
    values,
    errors: texts,
    brands: brands.map((b) => ({ ...b, mark: BRAND_MARKS[b.code] })),
    retryOf: retryOf === undefined ? '' : String(retryOf),
    brandsJson: JSON.stringify(account.card_brands.length > 0 ? brands.map((b) => b.code) : []),
    messagesJson: JSON.stringify(clientMessages(lang)),
    cscHint: t(lang, 'card.csc_hint'),
    browserFields: BROWSER_FIELDS,
    expiresAt: String(session.expires_at),
    openUntil: formatTime(lang, session.expires_at),
  });
}
