import { describe, expect, it } from 'vitest';
import { canMove, moveTo } from '../../../src/core/payments/transitions.js';
import { PaymentStatus as S, orderStatusOf, withLaterFields, type Payment, type PaymentStatus } from '../../../src/core/records/payment.js';

const ALL = Object.values(S) as PaymentStatus[];

/** The moves docs/api.md#statuses and the follow-up calls allow; every other pair must be refused. */
const ALLOWED: Record<PaymentStatus, PaymentStatus[]> = {
  [S.PENDING]: [S.HELD, S.AUTHORISED, S.CAPTURED, S.DECLINED, S.REJECTED, S.THREEDS_FAILED, S.CANCELLED, S.EXPIRED],
  [S.HELD]: [S.AUTHORISED, S.CAPTURED, S.REJECTED, S.CANCELLED, S.EXPIRED],
  [S.AUTHORISED]: [S.CAPTURED, S.CANCELLED, S.EXPIRED],
  // a capture the acquirer failed later leaves nothing captured: expired (operations/capture-failed.ts)
  [S.CAPTURED]: [S.PARTLY_REFUNDED, S.REFUNDED, S.EXPIRED],
  // a refund the acquirer failed later gives the amount back (operations/refund-failed.ts)
  [S.PARTLY_REFUNDED]: [S.PARTLY_REFUNDED, S.REFUNDED, S.CAPTURED],
  [S.REFUNDED]: [S.PARTLY_REFUNDED, S.CAPTURED],
  [S.DECLINED]: [S.PENDING],
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

  it('when a payment is given its later fields, then they are present but unset, set ones are kept, and its JSON is the same', () => {
    const p = { status: S.AUTHORISED, updated_at: 1, written_by: 'c1:done', history: [] } as unknown as Payment;
    const text = JSON.stringify(p);
    const shaped = withLaterFields(p);
    expect(shaped).toBe(p);
    for (const field of ['connector_ref', 'recurring_id', 'auth_expires_at', 'claim']) {
      expect(field in shaped).toBe(true);
      expect((shaped as unknown as Record<string, unknown>)[field]).toBeUndefined();
    }
    expect(shaped.written_by).toBe('c1:done');
    expect(JSON.stringify(shaped)).toBe(text);
    const moved = moveTo(shaped, S.CAPTURED, 5, { connector_ref: 'sbx_1' });
    expect(moved.ok && JSON.parse(JSON.stringify(moved.payment))).toEqual({
      ...JSON.parse(text),
      status: S.CAPTURED,
      updated_at: 5,
      connector_ref: 'sbx_1',
      history: [{ at: 5, from: S.AUTHORISED, to: S.CAPTURED }],
    });
  });
});
