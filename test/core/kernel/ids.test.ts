import { describe, expect, it } from 'vitest';
import { ManualClock, randomIds } from '../../../src/core/kernel/clock.js';
import { luhnValid, maskCardNumbers } from '../../../src/core/kernel/cards.js';
import { orderMismatch } from '../../../src/core/operations/apply.js';
import type { Payment } from '../../../src/core/records/payment.js';

// 2026-11-23 06:55:04 UTC: its stamp 20261123065504 is Luhn-valid, as one second in ten is
const LUHN_SECOND = Date.UTC(2026, 10, 23, 6, 55, 4);

describe("recurring ids and their charges' order numbers", () => {
  it('when a subscription is made in a second whose stamp passes the Luhn check, then its charge order numbers hold no card-like digit run', () => {
    expect(luhnValid('20261123065504')).toBe(true);
    const ids = randomIds(new ManualClock(LUHN_SECOND));
    for (let i = 0; i < 2000; i++) {
      const orderNo = `${ids.recurringId()}-2`;
      // free-text masking (what every request's order_no goes through) leaves it as it is
      expect(maskCardNumbers(orderNo)).toBe(orderNo);
      expect(maskCardNumbers(`${orderNo}-R1`)).toBe(`${orderNo}-R1`);
    }
    expect(ids.recurringId()).toMatch(/^RC20261123T065504[A-Z][0-9A-Z]{5}$/);
  });

  it('when a charge made before stored an order number with such a run, then the order number sent back as stored matches it', () => {
    const stored = { order_no: 'RC20261123065504ABCDEF-2', currency: 'USD', amount: 2500 } as Payment;
    // a date stamp is under no issuer's prefix: masking leaves it as it is now
    expect(maskCardNumbers(stored.order_no)).toBe(stored.order_no);
    const ref = { transaction_id: 't', currency: 'USD', amount: 2500 };
    expect(orderMismatch(stored, { ...ref, order_no: stored.order_no }, true)).toBeUndefined();
    expect(orderMismatch(stored, { ...ref, order_no: 'RC20261123065504ABCDEF-3' }, true)).toBe('ORDER_NO_MISMATCH');
  });
});
