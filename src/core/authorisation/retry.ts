import type { CoreDeps } from '../ports/deps.js';
import { RESULT } from '../kernel/result-codes.js';
import { PaymentStatus as S, type Payment } from '../records/payment.js';
import { moveTo } from '../payments/transitions.js';
import { acquirerReference, newClaim, withoutClaim } from '../payments/claim.js';
import { connectorFor } from '../ports/connector.js';
import { settleAuthorisation, type PaymentResult } from '../payments/settle.js';
import { askAndSettle, commitReopened, keptCards, orderRisk, resolveCard, type AuthoriseCommand } from './authorise.js';

/** Attempts one hosted checkout may make (the first card and four more): a card-testing loop ends there. */
export const MAX_CHECKOUT_ATTEMPTS = 5;

/**
 * Declines after which the shopper may try another card: the issuer said no to this card. Not after a decline
 * as suspected fraud (3010), a risk rejection or a failed 3-D Secure: those are not a card to swap.
 */
const RETRYABLE: ReadonlySet<string> = new Set(
  [RESULT.DECLINED, RESULT.INSUFFICIENT_FUNDS, RESULT.EXPIRED_CARD, RESULT.CONNECTOR_ERROR].map(([code]) => code),
);

/** True when a declined payment of a hosted checkout may take the shopper's next card (the session decides the time). */
export function mayTryAnotherCard(p: Payment): boolean {
  return (
    p.source === 'checkout' &&
    p.status === S.DECLINED &&
    RETRYABLE.has(p.result_code) &&
    !p.claim &&
    (p.attempt ?? 1) < MAX_CHECKOUT_ATTEMPTS
  );
}

/**
 * The shopper of a hosted checkout tries another card after a decline. The payment stays one payment (one
 * transaction_id, one order_no: the merchant is never charged twice for an order): it is re-opened
 * (4000 -> 1000) under a new claim, as its next attempt, whose acquirer references are its own, and the
 * acquirer is asked with the new card. The decline was notified as it happened, and so is this attempt's
 * outcome. undefined: the payment moved meanwhile (another submit took it); the caller reads it again.
 */
export async function tryAnotherCard(deps: CoreDeps, cmd: AuthoriseCommand, declined: Payment): Promise<PaymentResult | undefined> {
  const { account, order } = cmd;
  if (!mayTryAnotherCard(declined)) return undefined;
  const card = await resolveCard(deps, cmd);
  const now = deps.clock.now();
  const attempt = (declined.attempt ?? 1) + 1;
  const reference = acquirerReference.authorise(declined.transaction_id, attempt);
  const claim = newClaim(deps, { op: 'authorise', reference, amount: declined.amount }, now);
  // what the declined attempt kept went with its decline; this card is kept as a first attempt's would be (the
  // merchant's token for token_flag or a subscription, the shopper's saved card with consent), a vault card as it is
  const kept = keptCards(deps, cmd, card, now);
  const vault: Partial<Payment> = {
    vault_token: undefined,
    vault_created: undefined,
    token_id: undefined,
    save_card: undefined,
    ...kept.fields,
  };
  const risk = orderRisk(account, order, card);
  const { never_sent: _n, ...base } = withoutClaim(declined);
  const move = moveTo(base, S.PENDING, now, {
    claim,
    written_by: `${claim.id}:attempt${attempt}`,
    result_code: RESULT.PENDING[0],
    attempt,
    card: card.summary,
    risk,
    connector_ref: undefined,
    threeds: { mode: order.open3d, challenge_pending: false, result: '' },
    ...vault,
    ...(cmd.browser ? { device: cmd.browser } : {}),
  });
  if (!move.ok || !(await commitReopened(deps, declined, move.payment, kept.records, claim.until))) return undefined;
  const payment: Payment = { ...move.payment, version: declined.version + 1 };
  if (risk.action === 'REJECT') return settleAuthorisation(deps, account, payment, { kind: 'rejected' }, 'payment');
  return askAndSettle(deps, account, connectorFor(deps, account), payment, reference, card, cmd);
}
