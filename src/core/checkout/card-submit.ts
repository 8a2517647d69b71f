import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { CheckoutSession } from '../records/session.js';
import type { BrowserInfo } from '../ports/card-connector.js';
import type { CardInput, PaymentOrder } from '../authorisation/authorise.js';
import { GatewayError } from '../kernel/errors.js';
import { expiryPassed } from '../kernel/cards.js';
import { saveChoiceFor, type ShopperChoice } from '../saved-cards/saved-cards.js';
import { checkoutStage, payCheckout, retryableAttempt, type CheckoutStage } from './hosted.js';

/** Whether the card page takes a card now, and for which declined attempt (docs/checkout.md). */
export type CardPageGate =
  | { kind: 'suspended' }
  /** the session is past its card page: its stage decides the page */
  | { kind: 'stage'; stage: CheckoutStage }
  /** the card page takes a card; `retryOf` is the declined attempt it answers with another card */
  | { kind: 'open'; retryOf: number | undefined };

/**
 * The card page's gate. Another card after a decline is taken only for the attempt whose decline the form was
 * shown with (`attempt`, as the form carries it): a double submit of the first card's form, which carries none,
 * answers the first payment. A merchant suspended while the page was open gets a clear page, nothing charged.
 */
export async function cardPageGate(deps: CoreDeps, account: Account, session: CheckoutSession, attempt?: string): Promise<CardPageGate> {
  const stage = await checkoutStage(deps, session);
  const open = retryableAttempt(deps, session, stage);
  const retryOf = attempt === undefined ? open : open !== undefined && attempt === String(open) ? open : undefined;
  if (account.merchant_status === 'suspended' && (stage.kind === 'open' || retryOf !== undefined)) return { kind: 'suspended' };
  if (stage.kind !== 'open' && retryOf === undefined) return { kind: 'stage', stage };
  return { kind: 'open', retryOf };
}

export interface CardSubmission {
  /** the card typed, when the shopper paid with one (not a saved card) */
  card: CardInput | undefined;
  /** a saved card chosen, or consent to save the card typed */
  choice: ShopperChoice | undefined;
  browser: BrowserInfo;
  retryOf: number | undefined;
  /** the session's stored order, read by the request's own schema; undefined when it no longer reads */
  order: () => PaymentOrder | undefined;
}

/** What a card submit came to: a stage to show, or why the form is shown again. */
export type CardSubmitOutcome =
  | { kind: 'stage'; stage: CheckoutStage }
  | { kind: 'card-expired' }
  /** the order stored with the session no longer passes the request's rules (the gateway was upgraded) */
  | { kind: 'outdated' }
  /** the core refused the card (a 400 from the authorisation) */
  | { kind: 'card-refused' };

/**
 * Pays the session with the shopper's card or saved card. A card the shopper has saved already (same number and
 * expiry) is paid with, not saved a second time. Another request paying the same order_no meanwhile is the
 * `taken` stage (nothing charged here); an acquirer whose answer is not known yet leaves the payment pending,
 * which its stage shows while recovery settles it.
 */
export async function submitCard(
  deps: CoreDeps,
  account: Account,
  session: CheckoutSession,
  s: CardSubmission,
): Promise<CardSubmitOutcome> {
  const { card } = s;
  if (card && expiryPassed(card.expMonth, card.expYear, deps.clock.now())) return { kind: 'card-expired' };
  const order = s.order();
  if (!order) return { kind: 'outdated' };
  let choice = s.choice;
  if (card && choice && 'saveCardFor' in choice)
    choice = await saveChoiceFor(deps, account, choice, { pan: card.pan, expMonth: card.expMonth, expYear: card.expYear });
  try {
    return { kind: 'stage', stage: await payCheckout(deps, account, session, order, card, s.browser, s.retryOf, choice) };
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'ORDER_CONFLICT') return { kind: 'stage', stage: { kind: 'taken' } };
    if (err instanceof GatewayError && err.code === 'OUTCOME_UNKNOWN') return { kind: 'stage', stage: await checkoutStage(deps, session) };
    if (err instanceof GatewayError && err.status === 400) return { kind: 'card-refused' };
    throw err;
  }
}
