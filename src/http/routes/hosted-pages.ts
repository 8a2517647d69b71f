import { Router, type Request, type Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/records/directory.js';
import { cancelCheckout, checkoutStage, retryableAttempt, type CheckoutStage } from '../../core/checkout/hosted.js';
import { hostedUrls, type CheckoutSession } from '../../core/records/session.js';
import { cancelledResult, parentOrigin, paymentResult } from '../../core/checkout/result.js';
import { issuerUrl } from '../../core/payments/settle.js';
import { checkoutSchema } from '../schemas/payment-request.js';
import { safeParseRequest } from '../schemas/common.js';
import { brandRefusal, readBrowserData, readCardForm, type CardFormErrors } from '../schemas/card-form.js';
import { paymentOrder } from '../schemas/payment-order.js';
import { displayName, NOTICES, preparePage, renderNotice, renderUnknown, shopOf, shopperLang } from '../render/pages.js';
import { renderResult } from '../render/result-page.js';
import { renderCard } from '../render/card-page.js';
import { findSession } from './hosted-session.js';
import { cardPageGate, submitCard, type CardPageGate } from '../../core/checkout/card-submit.js';
import { prepareSavedCards } from '../render/saved-cards.js';
import { readShopperChoice } from '../schemas/saved-card-form.js';
import { deleteSavedCard } from '../../core/saved-cards/saved-cards.js';
import { CHECKOUT_PAGES } from '../calls/payments.js';

const s = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Sends the shopper where the session's stage says: result, challenge, card page or a notice. */
function followStage(deps: CoreDeps, req: Request, res: Response, account: Account, session: CheckoutSession, stage: CheckoutStage): void {
  const lang = shopperLang(req, session.request);
  const urls = hostedUrls(deps.baseUrl, session.merchant_id, session.session_id);
  switch (stage.kind) {
    case 'open':
      return res.redirect(303, urls.card);
    case 'expired':
      return renderNotice(res, deps, account, lang, {
        ...NOTICES.expired,
        parentOrigin: parentOrigin(account, session.return_url),
        backTo: shopOf(account, session),
      });
    case 'paid':
      if (stage.payment.threeds.challenge_pending) return res.redirect(303, issuerUrl(deps.baseUrl, stage.payment));
      return res.redirect(303, urls.result);
    case 'cancelled':
      return res.redirect(303, urls.result);
    case 'taken':
      return renderNotice(res, deps, account, lang, {
        ...NOTICES.taken,
        parentOrigin: parentOrigin(account, session.return_url),
        backTo: shopOf(account, session),
      });
  }
}

/** The card page's answer when it takes no card: the suspended notice, or the session's stage. */
function answerGate(
  deps: CoreDeps,
  req: Request,
  res: Response,
  account: Account,
  session: CheckoutSession,
  gate: Exclude<CardPageGate, { kind: 'open' }>,
): void {
  if (gate.kind === 'stage') return followStage(deps, req, res, account, session, gate.stage);
  renderNotice(res, deps, account, shopperLang(req, session.request), { ...NOTICES.suspended, backTo: shopOf(account, session) });
}

async function sessionOf(deps: CoreDeps, req: Request, res: Response) {
  const found = await findSession(deps, req.params.merchantId, req.params.sessionId);
  if (!found) renderUnknown(res, deps, req, req.params.merchantId);
  return found;
}

/** The hosted card page, its card submit and cancel, and the result page of one checkout session. */
export function hostedPagesRouter(deps: CoreDeps): Router {
  const router = Router();
  const base = CHECKOUT_PAGES;

  router.get(base, async (req, res) => {
    const found = await sessionOf(deps, req, res);
    if (!found) return;
    const { account, session } = found;
    const gate = await cardPageGate(deps, account, session);
    if (gate.kind !== 'open') return answerGate(deps, req, res, account, session, gate);
    const r = session.request;
    const lang = shopperLang(req, r);
    await prepareSavedCards(deps, res, account, session, lang);
    renderCard(deps, res, {
      account,
      session,
      lang,
      values: { cardholder: [s(r.first_name), s(r.last_name)].filter(Boolean).join(' ') },
      retryOf: gate.retryOf,
    });
  });

  router.post(`${base}/pay`, async (req, res) => {
    const found = await sessionOf(deps, req, res);
    if (!found) return;
    const { session, account } = found;
    const lang = shopperLang(req, session.request);
    const body = req.body as Record<string, unknown>;
    // an expired, paid or cancelled session answers its own page, whatever card was typed
    const gate = await cardPageGate(deps, account, session, s(body.attempt));
    if (gate.kind !== 'open') return answerGate(deps, req, res, account, session, gate);
    const retryOf = gate.retryOf;
    // the re-shown form keeps name and expiry; the security code never, and the number only while it is
    // itself at fault (not a valid card number), so a real card number never comes back in a page
    const kept = {
      cardholder: s(body.cardholder),
      card: '',
      expiration_month: s(body.expiration_month),
      expiration_year: s(body.expiration_year),
    };
    const again = (errors: CardFormErrors, values = kept) =>
      renderCard(deps, res, { account, session, lang, values, errors, status: 422, retryOf });
    // a proven shopper's saved card (its security code asked again) or consent to save the card typed (docs/checkout.md#saved-cards-for-returning-shoppers)
    await prepareSavedCards(deps, res, account, session, lang, s(body.saved_card));
    const shopper = await readShopperChoice(deps, account, session, body);
    if (shopper.kind === 'refused') return again(shopper.errors);
    const read = shopper.kind === 'saved' ? undefined : readCardForm(body);
    if (read && !read.ok) return again(read.errors, read.errors.card ? { ...kept, card: s(body.card) } : kept);
    const card = read?.form;
    const refusal = card && brandRefusal(card.card, account.card_brands);
    if (refusal) return again({ card: refusal });
    const outcome = await submitCard(deps, account, session, {
      card: card && {
        pan: card.card,
        expMonth: card.expiration_month,
        expYear: card.expiration_year,
        securityCode: card.security_code,
      },
      choice: shopper.kind === 'none' ? undefined : shopper.choice,
      browser: readBrowserData(body, { userAgent: req.get('user-agent'), accept: req.get('accept') }),
      retryOf,
      order: () => {
        const stored = safeParseRequest(checkoutSchema, session.request);
        return stored.success ? paymentOrder(stored.data) : undefined;
      },
    });
    switch (outcome.kind) {
      case 'card-expired':
        return again({ expiration_year: { key: 'error.expired' } });
      case 'card-refused':
        return again({ card: { key: 'error.card_refused' } });
      case 'outdated':
        return renderNotice(res, deps, account, lang, {
          ...NOTICES.outdated,
          parentOrigin: parentOrigin(account, session.return_url),
          backTo: shopOf(account, session),
        });
      case 'stage':
        return followStage(deps, req, res, account, session, outcome.stage);
    }
  });

  // the shopper removes one of its saved cards (docs/checkout.md#saved-cards-for-returning-shoppers); the session's address is the form's capability, as
  // for the card and cancel forms; a card_id that is not this shopper's removes nothing
  router.post(`${base}/saved-cards/remove`, async (req, res) => {
    const found = await sessionOf(deps, req, res);
    if (!found) return;
    const { session, account } = found;
    const stage = await checkoutStage(deps, session);
    if (stage.kind !== 'open' && retryableAttempt(deps, session, stage) === undefined)
      return followStage(deps, req, res, account, session, stage);
    const cardId = s((req.body as Record<string, unknown>).card_id);
    if (account.saved_cards && session.shopper_id) await deleteSavedCard(deps, account, session.shopper_id, cardId);
    res.redirect(303, hostedUrls(deps.baseUrl, session.merchant_id, session.session_id).card);
  });

  const cancel = async (req: Request, res: Response): Promise<void> => {
    const found = await sessionOf(deps, req, res);
    if (!found) return;
    followStage(deps, req, res, found.account, found.session, await cancelCheckout(deps, found.session));
  };
  // a GET (the cancelUrl alias, a link) only asks: link prefetchers and scanners must not cancel a checkout
  router.get(`${base}/cancel`, async (req, res) => {
    const found = await sessionOf(deps, req, res);
    if (!found) return;
    const { session, account } = found;
    const stage = await checkoutStage(deps, session);
    if (stage.kind !== 'open') return followStage(deps, req, res, account, session, stage);
    preparePage(res, deps, account, shopperLang(req, session.request));
    res.render('cancel-confirm', {
      parentOrigin: parentOrigin(account, session.return_url) ?? '',
      merchantName: displayName(account),
      urls: hostedUrls(deps.baseUrl, session.merchant_id, session.session_id),
    });
  });
  router.post(`${base}/cancel`, cancel);

  router.get(`${base}/result`, async (req, res) => {
    const found = await sessionOf(deps, req, res);
    if (!found) return;
    const { session, account } = found;
    const stage = await checkoutStage(deps, session);
    if (stage.kind === 'cancelled') {
      return renderResult(deps, res, account, cancelledResult(account, session), {
        outcome: 'cancelled',
        redirectTo: session.cancel_url || session.return_url,
        parentOrigin: parentOrigin(account, session.return_url),
        lang: shopperLang(req, session.request),
      });
    }
    if (stage.kind !== 'paid' || stage.payment.threeds.challenge_pending) return followStage(deps, req, res, account, session, stage);
    return renderResult(deps, res, account, paymentResult(account, stage.payment), {
      payment: stage.payment,
      ...(retryableAttempt(deps, session, stage) !== undefined
        ? { retryUrl: hostedUrls(deps.baseUrl, session.merchant_id, session.session_id).card }
        : {}),
      redirectTo: session.return_url,
      parentOrigin: parentOrigin(account, session.return_url),
      lang: shopperLang(req, session.request),
    });
  });
  return router;
}
