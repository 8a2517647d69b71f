import { timingSafeEqual } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/records/directory.js';
import type { Payment } from '../../core/records/payment.js';
import { formatAmount } from '../../i18n/index.js';
import { answerChallenge } from '../../core/authorisation/authorise.js';
import { depsOnClockOf } from '../../core/clocks/clock-deps.js';
import { handOffChallenge } from '../../core/payments/challenge-handoff.js';
import { CHALLENGE_ABANDONED, failChallenge } from '../../core/authorisation/challenge-expiry.js';
import { paymentResult, parentOrigin } from '../../core/checkout/result.js';
import { httpUrl } from '../schemas/common.js';
import { returnUrlAllowed } from '../../core/merchants/return-origins.js';
import { checkNotifyTarget } from '../../core/notifications/target.js';
import { displayName, preparePage, renderUnknown, shopperLang } from '../render/pages.js';
import { renderResult } from '../render/result-page.js';

const s = (v: unknown): string => (typeof v === 'string' ? v : '');

function secretMatches(p: Payment, secret: string): boolean {
  const expected = p.threeds.challenge_secret;
  if (!expected) return false;
  // byte lengths: a decoded path segment as long in characters may be longer in bytes (timingSafeEqual throws)
  const want = Buffer.from(expected);
  const got = Buffer.from(secret);
  return got.length === want.length && timingSafeEqual(want, got);
}

/** The payment behind an issuer_url, when the address (with its secret) names one. */
async function challengedPayment(deps: CoreDeps, req: Request): Promise<{ payment: Payment; account: Account } | undefined> {
  const { merchantId, transactionId, secret } = req.params as Record<string, string>;
  if (!merchantId || merchantId.length > 7 || !transactionId || transactionId.length > 64 || !secret) return undefined;
  const payment = await deps.store.getPayment(merchantId, transactionId);
  if (!payment || !secretMatches(payment, secret)) return undefined;
  const account = deps.merchants.find(payment.merchant_id, payment.account_id);
  return account ? { payment, account } : undefined;
}

/** docs/api.md: an address appended to issuer_url counts only where the signed request carried none. */
function appended(current: string | undefined, offered: unknown): string {
  if (current) return '';
  const v = s(offered);
  return v && httpUrl.safeParse(v).success ? v : '';
}

/** An appended return address counts only on one of the account's own origins; others are ignored. */
function appendedReturn(account: Account, current: string | undefined, offered: unknown): string {
  const v = appended(current, offered);
  return v && returnUrlAllowed(account, v) ? v : '';
}

/** An appended notify_url is checked like a signed one (SSRF rules) when it is given; a refused one is ignored. */
async function appendedNotify(deps: CoreDeps, current: string | undefined, offered: unknown): Promise<string> {
  const v = appended(current, offered);
  if (!v) return '';
  const check = await checkNotifyTarget(v, deps.notifyAllowPrivate, deps.transport.resolve, 'accept');
  return check.ok ? v : '';
}

/** The shopper's language: a checkout payment's order says it; a direct payment has only the browser's. */
async function challengeLang(deps: CoreDeps, req: Request, p: Payment): Promise<string> {
  const sessionId = p.meta?.checkout_session;
  const session = sessionId ? await deps.store.getCheckoutSession(p.merchant_id, sessionId) : undefined;
  return shopperLang(req, session?.request);
}

/** A finished challenge: the checkout's own result page, or the signed result sent to the return address. */
async function finish(deps: CoreDeps, req: Request, res: Response, account: Account, p: Payment): Promise<void> {
  if (p.source === 'checkout' && p.return_url) return res.redirect(303, p.return_url);
  renderResult(deps, res, account, paymentResult(account, p), {
    payment: p,
    redirectTo: p.return_url ?? '',
    parentOrigin: parentOrigin(account, p.return_url ?? ''),
    lang: await challengeLang(deps, req, p),
  });
}

/** The sandbox issuer's 3-D Secure challenge page (GET, the issuer_url) and its answer (POST). */
export function threedsRouter(deps: CoreDeps): Router {
  const router = Router();
  const path = '/v1/3ds/:merchantId/:transactionId/:secret';

  router.get(path, async (req, res) => {
    const found = await challengedPayment(deps, req);
    if (!found) return renderUnknown(res, deps, req, req.params.merchantId);
    const { payment: p, account } = found;
    if (!p.threeds.challenge_pending) return finish(deps, req, res, account, p);
    // an acquirer's own challenge page (Stripe, Adyen): the shopper goes there, and comes back to `${path}/return`
    const handOff = await handOffChallenge(deps, p, {
      return_url: appendedReturn(account, p.return_url, req.query.return_url),
      notify_url: await appendedNotify(deps, p.notify_url, req.query.notify_url),
    });
    if (handOff) return res.redirect(303, handOff);
    const lang = await challengeLang(deps, req, p);
    preparePage(res, deps, account, lang);
    res.render('challenge', {
      parentOrigin: parentOrigin(account, p.return_url ?? '') ?? '',
      merchantName: displayName(account),
      amount: formatAmount(lang, p.amount, p.currency),
      // the last 4 only: the page is the issuer's, and the shopper knows the card by its end
      cardLast4: p.card?.last4 ?? '',
      cardBrand: p.card?.brand ?? '',
      action: req.originalUrl.split('?')[0],
      returnUrl: appendedReturn(account, p.return_url, req.query.return_url),
      notifyUrl: await appendedNotify(deps, p.notify_url, req.query.notify_url),
      error: '',
    });
  });

  router.post(path, async (req, res) => {
    const found = await challengedPayment(deps, req);
    if (!found) return renderUnknown(res, deps, req, req.params.merchantId);
    const { payment, account } = found;
    const body = req.body as Record<string, unknown>;
    const code = s(body.code).trim();
    const returnUrl = appendedReturn(account, payment.return_url, body.return_url);
    const withAddresses: Payment = {
      ...payment,
      notify_url: payment.notify_url || (await appendedNotify(deps, payment.notify_url, body.notify_url)),
      ...(returnUrl ? { return_url: returnUrl } : {}),
    };
    // a payment of a test clock is answered in the clock's time and queues (docs/test-clocks.md)
    const on = (await depsOnClockOf(deps, account.merchant_id, payment)) ?? deps;
    const result = await answerChallenge(on, account, withAddresses, code);
    await finish(deps, req, res, account, result.payment);
  });

  // back from the acquirer's own challenge page: Stripe names its intent (payment_intent, in the query), Adyen
  // hands its redirectResult (in the query, or a form post); the acquirer's result settles the payment once
  const returned = async (req: Request, res: Response): Promise<void> => {
    const found = await challengedPayment(deps, req);
    if (!found) return renderUnknown(res, deps, req, req.params.merchantId);
    const { payment, account } = found;
    // the sandbox issuer's challenge is answered on its own page, never by a return
    if (!payment.threeds.acquirer_url) return res.redirect(303, req.originalUrl.split('?')[0]!.replace(/\/return$/, ''));
    const data = { ...(req.query as Record<string, unknown>), ...(req.method === 'POST' ? (req.body as Record<string, unknown>) : {}) };
    const intent = s(data.payment_intent);
    if (intent && intent !== payment.connector_ref) return renderUnknown(res, deps, req, req.params.merchantId);
    const result = await answerChallenge(
      (await depsOnClockOf(deps, account.merchant_id, payment)) ?? deps,
      account,
      payment,
      s(data.redirectResult),
    );
    await finish(deps, req, res, account, result.payment);
  };
  router.get(`${path}/return`, returned);
  router.post(`${path}/return`, returned);

  // the shopper gives up on the challenge: it fails now (4300) as an unanswered one does at its expiry
  router.post(`${path}/cancel`, async (req, res) => {
    const found = await challengedPayment(deps, req);
    if (!found) return renderUnknown(res, deps, req, req.params.merchantId);
    const { payment, account } = found;
    const failed = await failChallenge(
      (await depsOnClockOf(deps, account.merchant_id, payment)) ?? deps,
      account,
      payment,
      CHALLENGE_ABANDONED,
    );
    const current =
      failed && failed !== 'busy'
        ? failed.payment
        : ((await deps.store.getPayment(payment.merchant_id, payment.transaction_id)) ?? payment);
    // an answer holds the payment still: the challenge page shows where it stands
    if (current.threeds.challenge_pending) return res.redirect(303, req.originalUrl.split('?')[0]!.replace(/\/cancel$/, ''));
    // a direct payment's shopper goes on to the return address the challenge page carried, as after an answer
    const returnUrl = appendedReturn(account, current.return_url, (req.body as Record<string, unknown>).return_url);
    await finish(deps, req, res, account, returnUrl ? { ...current, return_url: returnUrl } : current);
  });
  return router;
}
