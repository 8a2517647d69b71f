import type { CoreDeps } from '../ports/deps.js';
import type { ChangeSet } from '../ports/store.js';
import type { Account } from '../records/directory.js';
import type { Payment } from '../records/payment.js';
import { GatewayError, invalidField } from '../kernel/errors.js';
import { sameRequest } from '../kernel/fingerprint.js';
import { authorisePayment, type AuthoriseCommand, type CardInput, type PaymentOrder } from '../authorisation/authorise.js';
import { mayTryAnotherCard, tryAnotherCard } from '../authorisation/retry.js';
import { shopperCommand, type ShopperChoice } from '../saved-cards/saved-cards.js';
import type { PaymentResult } from '../payments/settle.js';
import type { BrowserInfo } from '../ports/card-connector.js';
import { assertNotifyUrl } from '../notifications/target.js';
import { returnUrlAllowed } from '../merchants/return-origins.js';
import { firstOfOrder, orderForms, paymentOfOrder } from '../queries/order-lookup.js';
import { loadingFormFields } from './form.js';
import { paymentDepsOnClock } from '../clocks/clocks.js';
import { EXPIRED_SESSION_KEPT_MS, formSignature, hostedUrls, SETTLED_SESSION_TTL_MS, type CheckoutSession } from '../records/session.js';

export interface NewCheckout {
  account: Account;
  order: PaymentOrder;
  request: Record<string, unknown>;
  fingerprint: string;
  /** the request's hash as earlier versions kept it: asked on a mismatch */
  formerFingerprints?: () => readonly (string | undefined)[];
  /** the merchant's own return and cancel addresses (request fields) */
  returnUrl: string;
  cancelUrl: string;
  sourceIp: string;
  /** the proven shopper of an account that saves cards (saved-cards.ts provenShopper) */
  shopperId?: string | undefined;
}

/**
 * Opens the one checkout session of an order (account, order_no): the same signed request again answers the
 * open session; other content while it is open is refused (409) and nothing is stored. Once the session has
 * expired or was cancelled, the merchant may open a new one.
 */
export async function openCheckout(deps: CoreDeps, c: NewCheckout): Promise<CheckoutSession> {
  const { account, order } = c;
  await limitCheckouts(deps, account);
  for (const [field, url] of [
    ['return_url', c.returnUrl],
    ['cancel_url', c.cancelUrl],
  ] as const) {
    if (url && !returnUrlAllowed(account, url))
      throw invalidField(field, "must be on the account's website, storefront_domains or return_domains");
  }
  if (account.currencies.length > 0 && !account.currencies.includes(order.currency)) {
    throw invalidField('currency', `is not enabled for this account (${account.currencies.join(', ')})`);
  }
  // checked now, as /v1/authorise does: at the card submit it could only be shown to the shopper
  await assertNotifyUrl(order.notify_url, deps.notifyAllowPrivate, deps.transport.resolve);
  const m = account.merchant_id;
  const create = async (expected: number, unusedOrders?: ChangeSet['unusedOrders']): Promise<CheckoutSession | undefined> => {
    const session = newSession(deps, c);
    const ttlMs = session.expires_at - session.created_at;
    const ok = await deps.store.commit({
      merchantId: m,
      checkoutSessions: [{ next: session, expected: 0, ttlMs: ttlMs + EXPIRED_SESSION_KEPT_MS }],
      checkoutOrders: [{ accountId: account.account_id, orderNo: order.order_no, sessionId: session.session_id, expected, ttlMs }],
      ...(unusedOrders ? { unusedOrders } : {}),
    });
    return ok ? { ...session, version: 1 } : undefined;
  };
  // most orders are new: the session is stored in one step, on condition that no form of the order_no has a
  // payment or a session (the lookups below, a round trip of their own, would find nothing); otherwise the
  // lookups decide, as for every order that has been seen before
  const created = await create(
    0,
    orderForms(order.order_no).map((orderNo) => ({ accountId: account.account_id, orderNo })),
  );
  if (created) return created;
  for (let attempt = 0; attempt < 3; attempt++) {
    // neither lookup depends on the other: they go out together (one round trip to Redis)
    const [used, indexed] = await Promise.all([
      paymentOfOrder(deps, m, account.account_id, order.order_no),
      deps.store.checkoutOfOrder(m, account.account_id, order.order_no),
    ]);
    if (used && !sameRequest(used.fingerprint, c.fingerprint, c.formerFingerprints)) {
      throw new GatewayError('ORDER_CONFLICT', 'order_no: was already used for a different payment request', 'order_no');
    }
    // a session opened before identifiers kept their digit runs is indexed under the order_no's former form
    const formerly = indexed ? undefined : await formerCheckoutOfOrder(deps, account, order.order_no);
    const sessionId = (indexed ?? formerly)?.sessionId;
    const open = sessionId && (await deps.store.getCheckoutSession(m, sessionId));
    if (open && open.state !== 'cancelled' && (open.state === 'paying' || deps.clock.now() < open.expires_at)) {
      if (sameRequest(open.fingerprint, c.fingerprint, c.formerFingerprints)) return open;
      throw new GatewayError('ORDER_CONFLICT', 'order_no: has an open checkout session with different content', 'order_no');
    }
    const made = await create(indexed?.version ?? 0);
    if (made) return made;
    // another request opened (or replaced) the order's session meanwhile: answer against that one
  }
  throw new GatewayError('STORE_UNAVAILABLE', 'could not store the checkout session; try again');
}

/** The session index of an order under a former form of its order_no (not the form it is indexed under now). */
function formerCheckoutOfOrder(deps: CoreDeps, account: Account, orderNo: string) {
  return firstOfOrder(orderNo, async (form) =>
    form === orderNo ? undefined : deps.store.checkoutOfOrder(account.merchant_id, account.account_id, form),
  );
}

/** Each session is stored for its whole life: an account's sessions a minute are bounded (docs/security.md). */
async function limitCheckouts(deps: CoreDeps, account: Account): Promise<void> {
  const limit = account.checkout_rate_per_minute;
  if (limit <= 0) return;
  const now = deps.clock.now();
  const windowStart = now - (now % 60_000);
  const count = await deps.store.countCheckout(account.merchant_id, account.account_id, 60_000, windowStart);
  if (count > limit) {
    const wait = Math.ceil((windowStart + 60_000 - now) / 1000);
    throw new GatewayError('RATE_LIMITED', `more than ${limit} checkout sessions a minute for this account`, undefined, wait);
  }
}

function newSession(deps: CoreDeps, c: NewCheckout): CheckoutSession {
  const now = deps.clock.now();
  return {
    version: 0,
    session_id: deps.ids.opaque('cs'),
    merchant_id: c.account.merchant_id,
    account_id: c.account.account_id,
    order_no: c.order.order_no,
    currency: c.order.currency,
    amount: c.order.amount,
    request: c.request,
    fingerprint: c.fingerprint,
    source_ip: c.sourceIp,
    return_url: c.returnUrl,
    cancel_url: c.cancelUrl,
    state: 'open',
    created_at: now,
    expires_at: now + c.account.checkout_ttl_minutes * 60_000,
    ...(c.shopperId ? { shopper_id: c.shopperId } : {}),
  };
}

/**
 * The loading page's hidden fields, derived from the stored session (the order is stored once). The
 * merchant's signature is replaced by the session's form value (formSignature).
 */
export function sessionForm(
  deps: Pick<CoreDeps, 'baseUrl' | 'timezone'>,
  account: Account,
  s: CheckoutSession,
): ReadonlyMap<string, string> {
  const urls = hostedUrls(deps.baseUrl, s.merchant_id, s.session_id);
  return loadingFormFields({
    account,
    request: { ...s.request, encryption_data: formSignature(account.sign_key, s.session_id) },
    resultUrl: urls.result,
    cancelUrl: urls.cancel,
    sourceIp: s.source_ip ?? '',
    timezone: deps.timezone,
    checkoutToken: s.session_id,
  });
}

/** Where a session stands, as its pages see it. The payment, once one exists, decides over the session. */
export type CheckoutStage =
  | { kind: 'open' }
  | { kind: 'expired' }
  | { kind: 'cancelled' }
  /** the order_no was paid by a different request (another session's order, or /v1/authorise) */
  | { kind: 'taken' }
  | { kind: 'paid'; payment: Payment };

export async function checkoutStage(deps: CoreDeps, s: CheckoutSession): Promise<CheckoutStage> {
  // read even for an open session: the merchant may have opened several sessions for the same signed order,
  // and once one of them paid, the others must show that payment, not ask for a card again
  const payment = await deps.store.findPaymentByOrder(s.merchant_id, s.account_id, s.order_no);
  if (payment && payment.fingerprint === s.fingerprint) return { kind: 'paid', payment };
  if (s.state === 'cancelled') return { kind: 'cancelled' };
  if (payment) return { kind: 'taken' };
  // open, or paying but the card never reached the core (refused before): the session still takes a card
  return deps.clock.now() >= s.expires_at ? { kind: 'expired' } : { kind: 'open' };
}

/** Moves a session on with an optimistic write; false when it moved meanwhile. */
async function moveSession(deps: CoreDeps, s: CheckoutSession, state: CheckoutSession['state']): Promise<boolean> {
  return deps.store.commit({
    merchantId: s.merchant_id,
    checkoutSessions: [{ next: { ...s, state }, expected: s.version, ttlMs: SETTLED_SESSION_TTL_MS }],
  });
}

/**
 * The attempt whose decline the shopper may answer with another card now: the session's payment was
 * declined in a way another card can change (retry.ts), and the session is still open (its expires_at).
 * undefined when the session takes no other card.
 */
export function retryableAttempt(deps: CoreDeps, session: CheckoutSession, stage: CheckoutStage): number | undefined {
  if (stage.kind !== 'paid' || session.state === 'cancelled' || deps.clock.now() >= session.expires_at) return undefined;
  return mayTryAnotherCard(stage.payment) ? (stage.payment.attempt ?? 1) : undefined;
}

/**
 * Pays a session with the shopper's card through the same core authorisation as /v1/authorise. An
 * expired or cancelled session charges nothing; a second submit gets the first payment's result
 * (authorisePayment is idempotent on order_no and the session's fingerprint). `retryOf` is the attempt whose
 * decline the shopper saw and answers with this card (the card form carries it): only while that attempt is
 * still the payment's latest does the card become the payment's next attempt, so a double submit of one
 * form never asks the acquirer twice.
 */
export async function payCheckout(
  deps: CoreDeps,
  account: Account,
  session: CheckoutSession,
  order: PaymentOrder,
  card: CardInput | undefined,
  browser?: BrowserInfo,
  retryOf?: number,
  choice?: ShopperChoice,
): Promise<CheckoutStage> {
  const cmd: AuthoriseCommand = {
    account,
    order: { ...order, return_url: hostedUrls(deps.baseUrl, session.merchant_id, session.session_id).result },
    ...(card ? { card } : {}),
    source: 'checkout',
    fingerprint: session.fingerprint,
    meta: { checkout_session: session.session_id },
    ...(browser ? { browser } : {}),
  };
  if (choice) shopperCommand(cmd, choice);
  if (retryOf !== undefined) {
    const stage = await checkoutStage(deps, session);
    if (stage.kind !== 'paid' || retryableAttempt(deps, session, stage) !== retryOf) return stage;
    const result = await tryAnotherCard(deps, cmd, stage.payment);
    return result ? { kind: 'paid', payment: result.payment } : checkoutStage(deps, session);
  }
  let current = session;
  for (let attempt = 0; attempt < 5; attempt++) {
    const stage = await checkoutStage(deps, current);
    if (stage.kind !== 'open') return stage;
    if (current.state === 'paying' || (await moveSession(deps, current, 'paying'))) break;
    const reread = await deps.store.getCheckoutSession(session.merchant_id, session.session_id);
    if (!reread) return { kind: 'expired' };
    current = reread;
  }
  // a session opened on a test clock pays in the clock's time and queues (docs/test-clocks.md)
  const clockId = session.request.test_clock_id;
  const payDeps = typeof clockId === 'string' && clockId !== '' ? await paymentDepsOnClock(deps, account, clockId) : deps;
  const result: PaymentResult = await authorisePayment(payDeps, cmd);
  return { kind: 'paid', payment: result.payment };
}

/** The shopper gives up: only a session without a payment is cancelled; otherwise its stage is answered. */
export async function cancelCheckout(deps: CoreDeps, session: CheckoutSession): Promise<CheckoutStage> {
  let current = session;
  for (let attempt = 0; attempt < 5; attempt++) {
    const stage = await checkoutStage(deps, current);
    if (stage.kind === 'paid' || stage.kind === 'cancelled' || stage.kind === 'taken') return stage;
    if (await moveSession(deps, current, 'cancelled')) return { kind: 'cancelled' };
    const reread = await deps.store.getCheckoutSession(session.merchant_id, session.session_id);
    if (!reread) return { kind: 'expired' };
    current = reread;
  }
  return checkoutStage(deps, current);
}
