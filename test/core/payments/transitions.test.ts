import { describe, expect, it } from 'vitest';
import { canMove, moveTo } from '../../../src/core/payments/transitions.js';
import { PaymentStatus as S, orderStatusOf, type Payment, type PaymentStatus } from '../../../src/core/payments/payment.js';

const ALL = Object.values(S) as PaymentStatus[];

/** The moves DESIGN section 4 and the follow-up calls allow; every other pair must be refused. */
const ALLOWED: Record<PaymentStatus, PaymentStatus[]> = {
  [S.PENDING]: [S.HELD, S.AUTHORISED, S.CAPTURED, S.DECLINED, S.REJECTED, S.THREEDS_FAILED, S.CANCELLED, S.EXPIRED],
  [S.HELD]: [S.AUTHORISED, S.CAPTURED, S.REJECTED, S.CANCELLED, S.EXPIRED],
  [S.AUTHORISED]: [S.CAPTURED, S.CANCELLED, S.EXPIRED],
  [S.CAPTURED]: [S.PARTLY_REFUNDED, S.REFUNDED],
  [S.PARTLY_REFUNDED]: [S.PARTLY_REFUNDED, S.REFUNDED],
  [S.REFUNDED]: [],
  [S.DECLINED]: [],
  [S.CANCELLED]: [],
  [S.REJECTED]: [],
  [S.THREEDS_FAILED]: [],
  [S.EXPIRED]: [],
};

describe('the payment transition table', () => {
  it.each(ALL.flatMap((from) => ALL.map((to) => [from, to] as const)))(
    'when %s moves to %s, then it is allowed only as documented',
    (from, to) => {
      expect(canMove(from, to)).toBe(ALLOWED[from].includes(to));
    },
  );

  it('when a move is refused, then the payment is returned unchanged and the refusal names both states', () => {
    const p = { status: S.DECLINED, updated_at: 1 } as Payment;
    expect(moveTo(p, S.CAPTURED, 5)).toEqual({ ok: false, from: S.DECLINED, to: S.CAPTURED });
    expect(p.status).toBe(S.DECLINED);
  });

  it('when a move is allowed, then a new payment carries the status, the time and the changes', () => {
    const p = { status: S.AUTHORISED, updated_at: 1, captured: 0 } as Payment;
    const moved = moveTo(p, S.CAPTURED, 5, { captured: 1000 });
    expect(moved).toMatchObject({ ok: true, payment: { status: S.CAPTURED, updated_at: 5, captured: 1000 } });
    expect(p.status).toBe(S.AUTHORISED);
  });

  it('when payment statuses are shown to merchants, then 1xxx/2xxx are pending, 3xxx approved, 4xxx failed', () => {
    expect(ALL.map((s) => [s, orderStatusOf(s)])).toEqual(ALL.map((s) => [s, s < '2100' ? '2' : s < '4000' ? '1' : '0']));
  });
});
