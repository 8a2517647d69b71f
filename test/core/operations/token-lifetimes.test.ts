import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { ACCOUNT_ID, MERCHANT_ID, authoriseBody, makeGateway, type TestGateway } from '../../support/gateway.js';
import { authorise, dailyPlan, jobOf } from '../../support/jobs.js';
import { postBatch } from '../../support/operations.js';
import { CARDS } from '../../support/cards.js';

/**
 * A token lives as long as anything charges it: the payment that made it ending (cancelled, rejected on review,
 * lapsed) does not end the token the merchant holds, nor the card a contract charges (docs/api.md, tokens).
 */
const HOUR = 3_600_000;

function gateway(name: string): { gw: TestGateway; clock: ManualClock } {
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));
  return { gw: makeGateway({ name: `token-lifetimes-${name}`, clock }), clock };
}

const cancelOrder = (answer: Record<string, string>) => ({
  transaction_id: answer.transaction_id,
  order_no: answer.order_no,
  currency: answer.currency,
  amount: answer.amount,
});

/** A token payment (no card data): its answer, or the refusal's status and text. */
async function payWithToken(gw: TestGateway, tokenId: string, extra: Record<string, unknown> = {}) {
  const body = authoriseBody({ card: '', expiration_month: '', expiration_year: '', security_code: '', token_id: tokenId, ...extra });
  return request(gw.app).post('/v1/authorise').set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body));
}

describe('the token of a payment that ends', () => {
  it('when the merchant verifies the card, voids it and then starts a subscription on its token, then the token charges the payment and every period', async () => {
    const { gw, clock } = gateway('verify-void');
    try {
      const verified = await authorise(gw, { token_flag: 'YES', amount: '1.00' });
      expect(verified.order_status).toBe('1');
      const tokenId = verified.token_id!;
      const voided = await postBatch(gw.app, 'cancel', [cancelOrder(verified)]);
      expect(voided.body.cancel_orders[0].cancel_status).toBe('1');

      const subscribed = await payWithToken(gw, tokenId, { subscription: dailyPlan({ billing_cycle: 3, contract_start: '' }) });
      expect(subscribed.status, subscribed.text).toBe(200);
      expect(subscribed.text).toMatch(/<order_status>1<\/order_status>/);
      const recurringId = /<recurring_id>([^<]+)</.exec(subscribed.text)![1]!;

      const scheduler = jobOf(gw, 'subscription-charges');
      for (let t = 0; t < 3 * 24 * HOUR; t += HOUR) {
        clock.advance(HOUR);
        await scheduler.runOnce();
      }
      const charges = await Promise.all(
        [2, 3].map((n) => gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${recurringId}-${n}`)),
      );
      expect(charges.map((p) => [p?.status, p?.result_code])).toEqual([
        ['3000', '0000'],
        ['3000', '0000'],
      ]);
      // and the merchant's next payment with it
      expect((await payWithToken(gw, tokenId)).text).toMatch(/<order_status>1<\/order_status>/);
    } finally {
      await gw.close();
    }
  });

  it('when a payment held for review is rejected, then the token the merchant was answered stays usable', async () => {
    const { gw } = gateway('review-reject');
    try {
      const held = await authorise(gw, { token_flag: 'YES', shopper_email: 'shopper+review@example.com' });
      expect(held.order_status).toBe('2');
      const rejected = await postBatch(gw.app, 'review', [{ ...cancelOrder(held), review_flag: '0' }]);
      expect(rejected.body.review_orders[0].review_status).toBe('1');
      expect((await payWithToken(gw, held.token_id!)).text).toMatch(/<order_status>1<\/order_status>/);
    } finally {
      await gw.close();
    }
  });

  it('when a payment is declined, then the token it made is dropped: the merchant was never answered a usable one', async () => {
    const { gw } = gateway('declined');
    try {
      const declined = await authorise(gw, { token_flag: 'YES', card: CARDS.declined });
      expect([declined.order_status, declined.token_id]).toEqual(['0', '']);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, declined.transaction_id!)).not.toHaveProperty('vault_token');
    } finally {
      await gw.close();
    }
  });
});
