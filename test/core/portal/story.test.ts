import { describe, expect, it } from 'vitest';
import { historyOf, summariseDelivery } from '../../../src/core/portal/story.js';
import type { OutboxRecord } from '../../../src/core/notifications/outbox.js';
import type { Payment } from '../../../src/core/records/payment.js';

const T0 = Date.UTC(2026, 10, 24, 10, 0, 0);

function notification(overrides: Partial<OutboxRecord>): OutboxRecord {
  return {
    version: 1,
    notify_id: 'ntf_1',
    merchant_id: '1000001',
    account_id: '1000001001',
    notify_type: 'payment',
    notify_url: 'https://shop.example/notify',
    fields: {},
    status: 'pending',
    attempts: 0,
    created_at: T0,
    next_attempt_at: T0,
    ...overrides,
  };
}

const payment = {
  created_at: T0,
  source: 'direct',
  amount: 2500,
  currency: 'USD',
  history: [{ at: T0, from: '1000', to: '4000' }],
  refunds: [],
} as unknown as Payment;

describe('when a notification has been tried many times', () => {
  it('then its summary has the count, the first and last attempt and the next retry', () => {
    const tries = Array.from({ length: 20 }, (_, i) => ({ at: T0 + i * 60_000, status: 503, error: 'answered HTTP 503' }));
    const d = summariseDelivery(notification({ attempts: 33, tries, next_attempt_at: T0 + 3_600_000 }));
    expect(d).toMatchObject({ state: 'retrying', attempts: 33, first: tries[0], last: tries[19], next_retry_at: T0 + 3_600_000 });
  });

  it('then the history has one line for all its attempts, at the last one', () => {
    const tries = Array.from({ length: 20 }, (_, i) => ({ at: T0 + (i + 1) * 60_000, error: 'connect ECONNREFUSED' }));
    const events = historyOf(payment, [notification({ attempts: 33, tries })], []);
    expect(events.map((e) => e.kind)).toEqual(['created', 'status', 'queued', 'delivery']);
    expect(events.at(-1)).toMatchObject({ at: T0 + 20 * 60_000, delivery: { attempts: 33 } });
  });

  it('then a delivered one is delivered at its delivery time, with no retry to come; a new one has no delivery line', () => {
    const delivered = notification({
      status: 'delivered',
      attempts: 2,
      delivered_at: T0 + 5000,
      tries: [
        { at: T0, status: 500, error: 'answered HTTP 500' },
        { at: T0 + 5000, status: 200 },
      ],
    });
    expect(summariseDelivery(delivered)).toMatchObject({ state: 'delivered', attempts: 2 });
    expect(summariseDelivery(delivered).next_retry_at).toBeUndefined();
    expect(historyOf(payment, [delivered], []).at(-1)).toMatchObject({ kind: 'delivery', at: T0 + 5000 });
    expect(historyOf(payment, [notification({})], []).map((e) => e.kind)).toEqual(['created', 'status', 'queued']);
    expect(summariseDelivery(notification({ status: 'failed', attempts: 40 })).state).toBe('failed');
  });
});
