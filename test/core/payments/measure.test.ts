import { describe, expect, it } from 'vitest';
import { approvalCounters, rollUpApprovals } from '../../../src/core/payments/measure.js';
import { PaymentStatus as S, type Payment } from '../../../src/core/records/payment.js';

const payment = (status: string, brand: string, country?: string): Payment =>
  ({
    account_id: '1000001001',
    status,
    card: { brand },
    ...(country === undefined ? {} : { billing_country: country }),
  }) as unknown as Payment;

describe('approval counters', () => {
  it('when a payment settles, then only its most specific dimension is counted: tried, and approved when approved', () => {
    expect(approvalCounters(payment(S.AUTHORISED, 'VISA', 'gb'))).toEqual({
      accountId: '1000001001',
      fields: ['card|VISA|GB:tried', 'card|VISA|GB:approved'],
    });
    expect(approvalCounters(payment(S.DECLINED, 'MASTERCARD'))).toEqual({ accountId: '1000001001', fields: ['card|MASTERCARD|:tried'] });
    expect(approvalCounters(payment(S.PENDING, 'VISA', 'GB'))).toBeUndefined();
  });

  it('when the counters are read, then every dimension is the sum of the specific fields under it', () => {
    const counts = rollUpApprovals({
      'card|VISA|GB:tried': 5,
      'card|VISA|GB:approved': 4,
      'card|VISA|FR:tried': 2,
      'card|MASTERCARD|GB:tried': 3,
      'card|MASTERCARD|GB:approved': 1,
      'card|VISA|:tried': 1,
    });
    expect(counts.get('card')).toEqual({ tried: 11, approved: 5 });
    expect(counts.get('card|VISA')).toEqual({ tried: 8, approved: 4 });
    expect(counts.get('card||GB')).toEqual({ tried: 8, approved: 5 });
    expect(counts.get('card|VISA|GB')).toEqual({ tried: 5, approved: 4 });
    expect(counts.get('card|MASTERCARD')).toEqual({ tried: 3, approved: 1 });
    expect(counts.get('card||FR')).toEqual({ tried: 2, approved: 0 });
  });

  it('when counters were written by an earlier gateway (all four dimensions), then they read the same as the specific ones alone', () => {
    // two approved VISA/GB payments and a declined VISA one without a country, as the earlier version counted them
    const earlier = {
      'card:tried': 3,
      'card:approved': 2,
      'card|VISA:tried': 3,
      'card|VISA:approved': 2,
      'card||GB:tried': 2,
      'card||GB:approved': 2,
      'card||:tried': 1,
      'card|VISA|GB:tried': 2,
      'card|VISA|GB:approved': 2,
      'card|VISA|:tried': 1,
    };
    const specific = { 'card|VISA|GB:tried': 2, 'card|VISA|GB:approved': 2, 'card|VISA|:tried': 1 };
    expect(rollUpApprovals(earlier)).toEqual(rollUpApprovals(specific));
    expect(rollUpApprovals(earlier).get('card')).toEqual({ tried: 3, approved: 2 });
  });
});
