import { PaymentStatus as S, type Payment, type PaymentStatus } from '../records/payment.js';

/**
 * The only place that says which status may follow which. Every status change goes through `moveTo`;
 * an illegal move is a result (per-order failure), never a state change.
 */
const TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  [S.PENDING]: [S.HELD, S.AUTHORISED, S.CAPTURED, S.DECLINED, S.REJECTED, S.THREEDS_FAILED, S.CANCELLED, S.EXPIRED],
  [S.HELD]: [S.AUTHORISED, S.CAPTURED, S.REJECTED, S.CANCELLED, S.EXPIRED],
  [S.AUTHORISED]: [S.CAPTURED, S.CANCELLED, S.EXPIRED],
  // expired, when a capture the acquirer accepted fails there later (operations/capture-failed.ts): no money moved
  [S.CAPTURED]: [S.PARTLY_REFUNDED, S.REFUNDED, S.EXPIRED],
  // back, when a refund the acquirer accepted fails there later (operations/refund-failed.ts): the money stayed
  [S.PARTLY_REFUNDED]: [S.PARTLY_REFUNDED, S.REFUNDED, S.CAPTURED],
  [S.REFUNDED]: [S.PARTLY_REFUNDED, S.CAPTURED],
  // an authorisation the acquirer never saw (never_sent), re-opened by the merchant's retry of the order; and a
  // hosted checkout's decline, re-opened by the shopper's next card while the session is open (retry.ts)
  [S.DECLINED]: [S.PENDING],
  [S.CANCELLED]: [],
  [S.REJECTED]: [],
  [S.THREEDS_FAILED]: [],
  [S.EXPIRED]: [],
};

export function canMove(from: PaymentStatus, to: PaymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export type Move = { ok: true; payment: Payment } | { ok: false; from: PaymentStatus; to: PaymentStatus };

/** A copy of the payment in its next status, or the refused move. */
export function moveTo(payment: Payment, to: PaymentStatus, now: number, changes: Partial<Payment> = {}): Move {
  if (!canMove(payment.status, to)) return { ok: false, from: payment.status, to };
  // every move is remembered, so the portal can tell the payment's story in order
  const history = [...(payment.history ?? []), { at: now, from: payment.status, to }];
  return { ok: true, payment: { ...payment, ...changes, status: to, updated_at: now, history } };
}

export const STATUS_TEXT: Readonly<Record<PaymentStatus, string>> = {
  [S.PENDING]: 'pending',
  [S.HELD]: 'held for review',
  [S.AUTHORISED]: 'authorised',
  [S.CAPTURED]: 'captured',
  [S.PARTLY_REFUNDED]: 'partly refunded',
  [S.REFUNDED]: 'refunded',
  [S.DECLINED]: 'declined',
  [S.CANCELLED]: 'cancelled',
  [S.REJECTED]: 'rejected by risk',
  [S.THREEDS_FAILED]: '3-D Secure failed',
  [S.EXPIRED]: 'expired',
};
