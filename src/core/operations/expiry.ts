import { PaymentStatus as S } from '../records/payment.js';
import { moveTo } from '../payments/transitions.js';
import { RESULT } from '../kernel/result-codes.js';
import { acquirerReference } from '../payments/claim.js';
import type { PaymentOperation } from './operation.js';
import { dropOwnCard } from './cancel.js';

/** Statuses whose authorisation lapses at the end of the account's window: authorised, and held for review. */
export const LAPSES: ReadonlySet<string> = new Set([S.AUTHORISED, S.HELD]);

/**
 * An authorisation not captured (or a held payment not reviewed) within the account's window lapses (4400);
 * the connector is asked to void it.
 */
export const expireOperation: PaymentOperation<{ now: number }, null> = {
  notifyType: 'expire',
  claimOp: 'expire',
  amountMustMatch: false,
  connectorOptional: true,
  plan(p, { now }) {
    if (!LAPSES.has(p.status)) return { ok: false, failure: 'NOT_APPROVED' };
    if (p.auth_expires_at === undefined || p.auth_expires_at > now) return { ok: false, failure: 'IN_PROCESS' };
    return { ok: true, plan: null };
  },
  intent: (p) => ({ reference: acquirerReference.void(p.transaction_id) }),
  execute: (connector, p, _plan, reference) => (p.connector_ref ? connector.void(p.connector_ref, reference) : undefined),
  apply({ now }, p) {
    const move = moveTo(p, S.EXPIRED, now, { result_code: RESULT.EXPIRED[0] });
    if (!move.ok) throw new Error('expiry planned on a payment that is not authorised');
    const { next, dropCards } = p.status === S.HELD ? dropOwnCard(move.payment) : { next: move.payment, dropCards: undefined };
    return { next, change: { due: [{ queue: 'auth_expiry', member: p.transaction_id, at: null }], ...(dropCards ? { dropCards } : {}) } };
  },
};
