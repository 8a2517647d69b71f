import { Router, type Request, type Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { invalidField } from '../../core/kernel/errors.js';
import { openCheckout, sessionForm } from '../../core/checkout/hosted.js';
import { hostedUrls } from '../../core/records/session.js';
import { authenticate, signedValues } from '../middleware/authenticate.js';
import { boundExtraFields, parseOrThrow } from '../schemas/common.js';
import { maskExtraFields, maskFreeText } from '../schemas/free-text.js';
import { checkoutFieldNames } from '../schemas/payment-request.js';
import { orderFingerprints, paymentOrder } from '../schemas/payment-order.js';
import { NOTICES, renderNotice, renderUnknown, shopOf, shopperLang } from '../render/pages.js';
import { pageAssets, assetTag } from '../render/assets.js';
import { dirOf, negotiate, t, type MessageKey } from '../../i18n/index.js';
import { findSession } from './hosted-session.js';
import { clientAddress } from '../client-address.js';
import { paymentDepsOnClock } from '../../core/clocks/clocks.js';
import { hiddenInputs } from '../render/hidden-fields.js';
import { htmlText } from '../render/html-text.js';
import { assertActive, type Account } from '../../core/records/directory.js';
import { provenShopper } from '../../core/saved-cards/saved-cards.js';
import { SHOPPER_ID } from '../schemas/saved-cards.js';
import { checkoutCall } from '../calls/payments.js';

/** Card data never travels through the merchant: the shopper types it on the hosted card page. */
const CARD_FIELDS = ['card', 'expiration_month', 'expiration_year', 'security_code'] as const;

/** The merchant's signed checkout request: a stored session, answered by the loading page (or JSON). */
async function createCheckout(deps: CoreDeps, req: Request, res: Response): Promise<void> {
  const body = req.body as Record<string, unknown>;
  const account = await authenticate(deps, body, signedValues(checkoutCall, body));
  assertActive(account);
  for (const f of CARD_FIELDS) {
    if (body[f] !== undefined && body[f] !== '')
      throw invalidField(f, 'is not accepted by /v1/checkout; the shopper enters the card on the hosted page');
  }
  const input = parseOrThrow(checkoutCall.request, body);
  boundExtraFields(body, checkoutFieldNames);
  // the clock must be the account's now; the card page pays in its time (core/checkout/hosted.ts)
  if (input.test_clock_id) await paymentDepsOnClock(deps, account, input.test_clock_id);
  // the session keeps the request as sent (the loading form echoes it), card numbers in free text and in
  // undocumented fields masked; copied only to leave out `accept` (a rest copy is made property by property,
  // for every field sent)
  // shopper_signature proves the shopper once, here: it is not kept, nor echoed to the shopper's browser
  const request = maskExtraFields(
    maskFreeText(body.accept === undefined && body.shopper_signature === undefined ? body : withoutAccept(body)),
    checkoutFieldNames,
  );
  const order = paymentOrder(input);
  const session = await openCheckout(deps, {
    account,
    order,
    request,
    ...orderFingerprints(deps, body, order.amount),
    returnUrl: input.return_url,
    cancelUrl: input.cancel_url,
    sourceIp: clientAddress(req) ?? '',
    shopperId: shopperOf(account, body, input.shopper_id),
  });
  if (req.accepts(['text/html', 'application/json']) === 'application/json') {
    res.json({
      checkout_url: hostedUrls(deps.baseUrl, session.merchant_id, session.session_id).card,
      expires_at: new Date(session.expires_at).toISOString(),
    });
    return;
  }
  res.setHeader('Cache-Control', 'no-store');
  // the merchant's server forwards this page: its Accept-Language is not the shopper's, so only the order's
  const lang = negotiate(input.default_lang, input.browser_lang);
  const assets = pageAssets(deps.merchants);
  res.type('html').render('loading', {
    lang,
    dir: dirOf(lang),
    // the page's texts as HTML, characters beyond Latin-1 as references: the page stays one byte a character
    text: (k: MessageKey) => htmlText(t(lang, k)),
    asset: (name: string) => assetTag(assets, deps.baseUrl, name),
    action: `${deps.baseUrl}${checkoutCall.path}`,
    hiddenInputs: hiddenInputs(sessionForm(deps, account, session)),
  });
}

function withoutAccept(body: Record<string, unknown>): Record<string, unknown> {
  const sent = Object.assign(Object.create(null) as Record<string, unknown>, body);
  delete sent.accept;
  delete sent.shopper_signature;
  return sent;
}

/**
 * The shopper whose saved cards the page may offer (docs/checkout.md#saved-cards-for-returning-shoppers): proven over the shopper_id as sent, kept as the
 * session keeps the request (card numbers in it masked). An unproven or unprintable shopper_id is ignored.
 */
function shopperOf(account: Account, body: Record<string, unknown>, shopperId: string): string | undefined {
  const sent = typeof body.shopper_id === 'string' ? body.shopper_id : '';
  if (!SHOPPER_ID.test(sent)) return undefined;
  return provenShopper(account, sent, body.shopper_signature) && shopperId;
}

/** Browsers send every line break of a form value as CRLF: compare values with line breaks alike. */
const sameLines = (v: unknown): string => (typeof v === 'string' ? v.replace(/\r\n?/g, '\n') : '\u0000not text');

/**
 * The loading page's form post: the session it names is the truth. Values that disagree with the stored
 * form are refused; otherwise the shopper goes on to the card page (which handles expired and paid sessions).
 */
async function openFromForm(deps: CoreDeps, req: Request, res: Response): Promise<void> {
  const body = req.body as Record<string, unknown>;
  const found = await findSession(deps, body.merchant_id, body.checkout_token);
  if (!found) return renderUnknown(res, deps, req, body.merchant_id, shopperLang(req, body));
  const { session, account } = found;
  const form = sessionForm(deps, account, session);
  for (const [name, value] of Object.entries(body)) {
    const expected = form.get(name);
    if (expected !== undefined && sameLines(expected) !== sameLines(value))
      return renderNotice(res, deps, account, shopperLang(req, session.request), { ...NOTICES.changed, backTo: shopOf(account, session) });
  }
  res.redirect(303, hostedUrls(deps.baseUrl, session.merchant_id, session.session_id).card);
}

/** POST /v1/checkout: the merchant's signed request, or the loading page's own form post (checkout_token). */
export function checkoutRouter(deps: CoreDeps): Router {
  const router = Router();
  router.post(checkoutCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    if (body.checkout_token !== undefined) return openFromForm(deps, req, res);
    return createCheckout(deps, req, res);
  });
  return router;
}
