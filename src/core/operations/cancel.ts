import { PaymentStatus as S, type Payment } from '../records/payment.js';
import { moveTo } from '../payments/transitions.js';
import { RESULT } from '../kernel/result-codes.js';
import type { ChangeSet } from '../ports/store.js';
import { acquirerReference } from '../payments/claim.js';
import type { OrderRef, PaymentOperation, Planned } from './operation.js';
import { closedStatusFailure } from './status-failures.js';

interface CancelPlan {
  /** false for a scheduled recurring charge that never reached the connector */
  void: boolean;
}

/** True for a pending payment that may be cancelled: a recurring charge not yet run, or one waiting on 3-D Secure. */
function cancellablePending(p: Payment): boolean {
  return (p.source === 'recurring' && !p.connector_ref) || p.threeds.challenge_pending;
}

/** Statuses that mean the acquirer approved the card: its token_id was answered to the merchant as usable. */
const APPROVED: ReadonlySet<string> = new Set([S.HELD, S.AUTHORISED, S.CAPTURED]);

/**
 * Drops the vault card a cancelled, rejected or lapsed payment made, unless something else charges it: a contract
 * (the subscription it started), or the merchant, who holds the token_id of a payment the acquirer approved
 * ("verify the card, then void" keeps the token for later payments). A token lives as long as anything charges
 * it; the payment's own end is not the token's.
 */
export function dropOwnCard(p: Payment): { next: Payment; dropCards?: string[] } {
  if (!p.vault_created || !p.vault_token || p.recurring_id) return { next: p };
  if (p.token_id === p.vault_token && (p.history ?? []).some((h) => APPROVED.has(h.to))) return { next: p };
  const { token_id: _t, vault_token: _v, ...rest } = p;
  return { next: rest as Payment, dropCards: [p.vault_token] };
}

/** Cancel voids an authorisation or a held payment (and stops a pending recurring charge or 3-D Secure wait). */
export const cancelOperation: PaymentOperation<OrderRef, CancelPlan> = {
  notifyType: 'cancel',
  claimOp: 'cancel',
  amountMustMatch: true,
  plan(p: Payment): Planned<CancelPlan> {
    switch (p.status) {
      case S.AUTHORISED:
      case S.HELD:
        return { ok: true, plan: { void: true } };
      case S.PENDING:
        return cancellablePending(p) ? { ok: true, plan: { void: Boolean(p.connector_ref) } } : { ok: false, failure: 'IN_PROCESS' };
      case S.CAPTURED:
      case S.PARTLY_REFUNDED:
      case S.REFUNDED:
        return { ok: false, failure: 'CAPTURED_NOT_CANCELLABLE' };
      default:
        return { ok: false, failure: closedStatusFailure(p.status) ?? 'NOT_APPROVED' };
    }
  },
  intent: (p) => ({ reference: acquirerReference.void(p.transaction_id) }),
  execute: (connector, p, plan, reference) => {
    if (!plan.void || !p.connector_ref) return undefined;
    // a challenge waiting on the acquirer's own page, where the gateway finishes it (Adyen authorises only on
    // the gateway's details call, which a return after the cancel never makes): no authorisation to void, and
    // a void there is refused, which would leave the payment uncancellable
    if (p.threeds.challenge_pending && connector.ownChallengePage && !connector.endChallenge) return undefined;
    return connector.void(p.connector_ref, reference);
  },
  apply({ now }, p) {
    const move = moveTo(p, S.CANCELLED, now, {
      result_code: RESULT.CANCELLED[0],
      threeds: { ...p.threeds, challenge_pending: false },
    });
    if (!move.ok) throw new Error('cancel planned on a payment that cannot be cancelled');
    const { next, dropCards } = dropOwnCard(move.payment);
    const change: Omit<ChangeSet, 'merchantId'> = { due: [{ queue: 'auth_expiry', member: p.transaction_id, at: null }] };
    if (dropCards) change.dropCards = dropCards;
    return { next, change };
  },
};
