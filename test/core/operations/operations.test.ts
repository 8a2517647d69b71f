import { describe, expect, it } from 'vitest';
import { MERCHANT_ID } from '../../support/gateway.js';
import request from 'supertest';
import { batchBody, batchSignature, pay, postBatch, postQuery, ref, type Paid } from '../../support/operations.js';
import { dailyPlan } from '../../support/jobs.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

const gw = gatewayOnRedis('operations');

const NOTIFY = { notify_url: 'https://merchant.example/notify' };

async function statusOf(p: Paid): Promise<string> {
  const res = await postQuery(gw.app, '/v1/retrievalTrans', { transaction_id: p.transaction_id });
  expect(res.status).toBe(200);
  return res.body.orders_list[0].payment_status;
}

async function notificationsOf(p: Paid): Promise<Record<string, string>[]> {
  const due = await gw.deps.store.due(MERCHANT_ID, 'outbox', Number.MAX_SAFE_INTEGER, 10_000);
  const records = await Promise.all(due.map((d) => gw.deps.store.getOutbox(MERCHANT_ID, d.member)));
  return records.flatMap((r) => (r && r.fields.transaction_id === p.transaction_id ? [r.fields] : []));
}

describe('capture', () => {
  it('when an authorisation is captured in full, then the order succeeds, the answer is signed and the payment is 3100', async () => {
    const p = await pay(gw.app, NOTIFY);
    const res = await postBatch(gw.app, 'capture', [ref(p)]);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toMatchObject({ merchant_id: MERCHANT_ID, return_status: '1', return_message: 'OK' });
    expect(res.body.encryption_data).toBe(batchSignature(res.body));
    expect(res.body.capture_orders).toEqual([{ ...ref(p), capture_status: '1', error_message: '' }]);
    expect(await statusOf(p)).toBe('3100');
    const notes = await notificationsOf(p);
    expect(notes.map((n) => n.notify_type)).toContain('capture');
    expect(notes.find((n) => n.notify_type === 'capture')).toMatchObject({ payment_status: '3100', captured_amount: '10.00' });
  });

  it('when part of an authorisation is captured, then the capture succeeds once and a second capture fails', async () => {
    const p = await pay(gw.app);
    const first = await postBatch(gw.app, 'capture', [ref(p, { amount: '4.00' })]);
    expect(first.body.capture_orders[0]).toMatchObject({ capture_status: '1', amount: '4.00' });
    const second = await postBatch(gw.app, 'capture', [ref(p, { amount: '4.00' })]);
    expect(second.body.capture_orders[0]).toMatchObject({
      capture_status: '0',
      error_message: 'V2001:Transaction has already been captured',
    });
  });

  it('when the capture amount is 0.00, then that order fails and the payment stays authorised', async () => {
    const p = await pay(gw.app);
    const res = await postBatch(gw.app, 'capture', [ref(p, { amount: '0.00' })]);
    expect(res.body.capture_orders[0].error_message).toBe('V3003:Amount must be greater than zero');
    expect(await statusOf(p)).toBe('3000');
  });

  it('when the capture amount exceeds the authorised amount, then that order fails and the payment stays authorised', async () => {
    const p = await pay(gw.app);
    const res = await postBatch(gw.app, 'capture', [ref(p, { amount: '10.01' })]);
    expect(res.body.capture_orders[0]).toMatchObject({
      capture_status: '0',
      error_message: 'V3001:Capture amount exceeds the authorised amount',
    });
    expect(await statusOf(p)).toBe('3000');
  });

  it('when a yen payment is captured or refunded with a fraction of a yen, then the whole call is refused (400) and nothing moves', async () => {
    const p = await pay(gw.app, { currency: 'JPY', amount: '1000.00', item_total: '1000.00', items: 'Tea#,#T-1#,#500.00#,#2' });
    const res = await postBatch(gw.app, 'capture', [ref(p, { amount: '999.50' })]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ field: 'capture_orders.0.amount', return_status: '0' });
    expect(await statusOf(p)).toBe('3000');
    expect((await postBatch(gw.app, 'capture', [ref(p)])).body.capture_orders[0].capture_status).toBe('1');
    const refund = await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '0.50' })]);
    expect(refund.status).toBe(400);
    expect(refund.body.field).toBe('refund_orders.0.refund_amount');
    expect(await statusOf(p)).toBe('3100');
  });

  it('when a cancelled payment is captured, then the order fails as cancelled', async () => {
    const p = await pay(gw.app);
    expect((await postBatch(gw.app, 'cancel', [ref(p)])).body.cancel_orders[0].cancel_status).toBe('1');
    const res = await postBatch(gw.app, 'capture', [ref(p)]);
    expect(res.body.capture_orders[0]).toMatchObject({ capture_status: '0', error_message: 'V2002:Transaction has been cancelled' });
    expect(await statusOf(p)).toBe('4100');
  });

  it('when a held payment is captured, then the order fails until it is reviewed', async () => {
    const p = await pay(gw.app, { shopper_email: 'held+review@example.com' });
    const res = await postBatch(gw.app, 'capture', [ref(p)]);
    expect(res.body.capture_orders[0].error_message).toBe('V2006:Transaction is held for review; review it first');
  });

  it('when the connector refuses a capture, then the order fails with the reason and the payment is unchanged', async () => {
    const p = await pay(gw.app);
    const refused = await postBatch(gw.app, 'capture', [ref(p, { amount: '5.13' })]);
    expect(refused.body.capture_orders[0]).toMatchObject({
      capture_status: '0',
      error_message: 'V4001:Processing error at the connector; nothing was changed',
    });
    expect(await statusOf(p)).toBe('3000');
    const retried = await postBatch(gw.app, 'capture', [ref(p, { amount: '5.00' })]);
    expect(retried.body.capture_orders[0].capture_status).toBe('1');
  });
});

describe('order data that does not match', () => {
  it('when order_no, currency or amount differ from the transaction, or it is unknown, then each such order fails and the others succeed', async () => {
    const [a, b, c, d] = [await pay(gw.app), await pay(gw.app), await pay(gw.app), await pay(gw.app)];
    const res = await postBatch(gw.app, 'cancel', [
      ref(a, { order_no: 'SOMEONE-ELSE' }),
      ref(b, { currency: 'EUR' }),
      ref(c, { amount: '9.99' }),
      ref(d),
      ref(d, { transaction_id: 'NO-SUCH-TXN' }),
    ]);
    expect(res.status).toBe(200);
    expect(res.body.cancel_orders.map((o: { error_message: string }) => o.error_message)).toEqual([
      'V1002:order_no does not match the transaction',
      'V1003:currency does not match the transaction',
      'V1004:amount does not match the transaction',
      '',
      'V1001:Transaction not found',
    ]);
    expect([await statusOf(a), await statusOf(b), await statusOf(c), await statusOf(d)]).toEqual(['3000', '3000', '3000', '4100']);
  });

  it('when another account names a transaction, then it is not found', async () => {
    const p = await pay(gw.app);
    const res = await postBatch(gw.app, 'capture', [ref(p)], true);
    expect(res.body.capture_orders[0].error_message).toBe('V1001:Transaction not found');
    expect(await statusOf(p)).toBe('3000');
  });
});

describe('refund', () => {
  it('when a captured payment is refunded in parts, then each refund gets the next reference id and the last one completes it', async () => {
    const p = await pay(gw.app, NOTIFY);
    await postBatch(gw.app, 'capture', [ref(p)]);
    const res = await postBatch(gw.app, 'refund', [
      ref(p, { refund_amount: '3.00', refund_reason: 'one item back' }),
      ref(p, { refund_amount: '7.00', refund_reason: 'rest' }),
      ref(p, { refund_amount: '0.01', refund_reason: 'too much' }),
    ]);
    const [r1, r2, r3] = res.body.refund_orders;
    expect(r1).toMatchObject({
      refund_status: '1',
      refund_message: 'V0000:Success',
      refund_reference_id: `${p.transaction_id}-01`,
      refund_amount: '3.00',
      refund_reason: 'one item back',
    });
    expect(r2).toMatchObject({ refund_status: '1', refund_reference_id: `${p.transaction_id}-02` });
    expect(r3).toMatchObject({
      refund_status: '0',
      refund_message: 'V2009:Transaction has been refunded in full',
      refund_reference_id: '',
    });
    expect(Object.keys(r1).sort()).toEqual(
      [
        'amount',
        'currency',
        'order_no',
        'refund_amount',
        'refund_message',
        'refund_reason',
        'refund_reference',
        'refund_reference_id',
        'refund_status',
        'transaction_id',
      ].sort(),
    );
    expect(await statusOf(p)).toBe('3300');
    expect(
      (await notificationsOf(p))
        .filter((n) => n.notify_type === 'refund')
        .map((n) => n.refund_reference_id)
        .sort(),
    ).toEqual([`${p.transaction_id}-01`, `${p.transaction_id}-02`]);
  });

  it('when a refund exceeds what is left, then it fails and the payment stays partly refunded', async () => {
    const p = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(p, { amount: '8.00' })]);
    await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '5.00' })]);
    const res = await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '3.01' })]);
    expect(res.body.refund_orders[0]).toMatchObject({
      refund_status: '0',
      refund_message: 'V3002:Refund amount exceeds the amount left to refund',
    });
    expect(await statusOf(p)).toBe('3200');
  });

  it('when an authorisation is refunded before capture, then the order fails', async () => {
    const p = await pay(gw.app);
    const res = await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '1.00' })]);
    expect(res.body.refund_orders[0]).toMatchObject({ refund_status: '0', refund_message: 'V2008:Transaction has not been captured' });
    expect(await statusOf(p)).toBe('3000');
  });

  it('when the connector refuses a refund, then nothing is refunded and a later refund gets the next reference (01 was sent once)', async () => {
    const p = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(p)]);
    const refused = await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '1.13' })]);
    expect(refused.body.refund_orders[0]).toMatchObject({
      refund_status: '0',
      refund_message: 'V4001:Processing error at the connector; nothing was changed',
    });
    expect(await statusOf(p)).toBe('3100');
    const ok = await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '1.00' })]);
    expect(ok.body.refund_orders[0].refund_reference_id).toBe(`${p.transaction_id}-02`);
  });
});

describe('review', () => {
  it('when a held payment is approved, then it becomes an authorisation that can be captured', async () => {
    const p = await pay(gw.app, { shopper_email: 'a+review@example.com', ...NOTIFY });
    expect(p.order_status).toBe('2');
    const res = await postBatch(gw.app, 'review', [ref(p, { review_flag: '1' })]);
    expect(res.body.review_orders[0]).toEqual({ ...ref(p), review_flag: '1', review_status: '1', error_message: '' });
    expect(await statusOf(p)).toBe('3000');
    expect((await notificationsOf(p)).some((n) => n.notify_type === 'review' && n.payment_status === '3000')).toBe(true);
    expect((await postBatch(gw.app, 'capture', [ref(p)])).body.capture_orders[0].capture_status).toBe('1');
  });

  it('when a held payment of an auto-capture account is approved, then it is captured (3100)', async () => {
    const p = await pay(gw.app, { shopper_email: 'b+review@example.com' }, true);
    const res = await postBatch(gw.app, 'review', [ref(p, { review_flag: '1' })], true);
    expect(res.body.review_orders[0].review_status).toBe('1');
    expect(await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id)).toMatchObject({ status: '3100', captured: 1000 });
  });

  it('when a held payment is rejected, then it is 4200 and can no longer be captured', async () => {
    const p = await pay(gw.app, { shopper_email: 'c+review@example.com' });
    const res = await postBatch(gw.app, 'review', [ref(p, { review_flag: '0' })]);
    expect(res.body.review_orders[0]).toMatchObject({ review_flag: '0', review_status: '1' });
    expect(await statusOf(p)).toBe('4200');
    expect((await postBatch(gw.app, 'capture', [ref(p)])).body.capture_orders[0].error_message).toBe('V2004:Transaction was not approved');
  });

  it('when a payment that is not held is reviewed, then the order fails and nothing changes', async () => {
    const p = await pay(gw.app);
    const res = await postBatch(gw.app, 'review', [ref(p, { review_flag: '1' })]);
    expect(res.body.review_orders[0]).toMatchObject({ review_status: '0', error_message: 'V2007:Transaction is not held for review' });
    expect(await statusOf(p)).toBe('3000');
  });

  it('when a held payment with a subscription is approved, then its contract is created', async () => {
    const subscription = {
      contract: 'C1',
      contract_name: 'Monthly box',
      contract_amount: '10.00',
      interval: 'month',
      interval_count: '1',
      billing_cycle: 3,
      promotion_cycle: 0,
      contract_start: '',
      contract_end: '',
      price_id: '',
    };
    const p = await pay(gw.app, { shopper_email: 'd+review@example.com', subscription });
    await postBatch(gw.app, 'review', [ref(p, { review_flag: '1' })]);
    const stored = await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id);
    expect(stored?.recurring_id).toBeTruthy();
    const contract = await gw.deps.store.getContract(MERCHANT_ID, stored!.recurring_id!);
    expect(contract).toMatchObject({ contract_name: 'Monthly box', status: 'Active', origin_transaction_id: p.transaction_id });
  });
});

describe('cancel', () => {
  it('when a held payment whose card was kept for tokens is cancelled, then it is 4100 and the token the merchant was answered stays (its own to charge)', async () => {
    const p = await pay(gw.app, { shopper_email: 'e+review@example.com', token_flag: 'YES' });
    const before = await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id);
    expect(before?.vault_token).toBeTruthy();
    expect(before?.token_id).toBe(before?.vault_token);
    const res = await postBatch(gw.app, 'cancel', [ref(p)]);
    expect(res.body.cancel_orders[0]).toEqual({ ...ref(p), cancel_status: '1', error_message: '' });
    expect(await statusOf(p)).toBe('4100');
    expect(await gw.deps.store.getCard(MERCHANT_ID, before!.vault_token!)).toBeDefined();
  });

  it('when a held payment whose card was kept only for its subscription is cancelled before any contract, then the card is dropped', async () => {
    const p = await pay(gw.app, { shopper_email: 'e+review@example.com', subscription: dailyPlan() });
    const before = await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id);
    expect([Boolean(before?.vault_token), before?.token_id, before?.recurring_id]).toEqual([true, undefined, undefined]);
    expect((await postBatch(gw.app, 'cancel', [ref(p)])).body.cancel_orders[0].cancel_status).toBe('1');
    expect(await gw.deps.store.getCard(MERCHANT_ID, before!.vault_token!)).toBeUndefined();
  });

  it('when a payment waits for a 3-D Secure challenge, then it can be cancelled and the challenge no longer counts', async () => {
    const p = await pay(gw.app, { card: '4000002500003155', open3d: 'do3DS' });
    expect(p.order_status).toBe('2');
    const res = await postBatch(gw.app, 'cancel', [ref(p)]);
    expect(res.body.cancel_orders[0].cancel_status).toBe('1');
    expect(await statusOf(p)).toBe('4100');
  });

  it('when a scheduled recurring charge has not run yet, then cancel stops it (4100)', async () => {
    const origin = await gw.deps.store.getPayment(MERCHANT_ID, (await pay(gw.app)).transaction_id);
    const charge = {
      ...origin!,
      version: 0,
      transaction_id: `RC-${origin!.transaction_id}`,
      order_no: `RC-${origin!.order_no}`,
      status: '1000' as const,
      source: 'recurring' as const,
      auth_expires_at: undefined,
      connector_ref: undefined,
    };
    expect(await gw.deps.store.commit({ merchantId: MERCHANT_ID, payments: [{ next: charge, expected: 0 }] })).toBe(true);
    const c: Paid = {
      transaction_id: charge.transaction_id,
      order_no: charge.order_no,
      currency: 'USD',
      amount: '10.00',
      order_status: '2',
    };
    const res = await postBatch(gw.app, 'cancel', [ref(c)]);
    expect(res.body.cancel_orders[0]).toMatchObject({ cancel_status: '1', error_message: '' });
    expect(await statusOf(c)).toBe('4100');
  });

  it('when a captured payment is cancelled, then the order fails and says to refund', async () => {
    const p = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(p)]);
    const res = await postBatch(gw.app, 'cancel', [ref(p)]);
    expect(res.body.cancel_orders[0].error_message).toBe('V2010:Transaction has been captured; refund it instead');
  });

  it('when the connector refuses the void, then the authorisation stays as it was', async () => {
    const p = await pay(gw.app, { amount: '20.13' });
    const res = await postBatch(gw.app, 'cancel', [ref(p)]);
    expect(res.body.cancel_orders[0]).toMatchObject({
      cancel_status: '0',
      error_message: 'V4001:Processing error at the connector; nothing was changed',
    });
    expect(await statusOf(p)).toBe('3000');
  });
});

describe('limits and refusals of the whole call', () => {
  it('when the array is empty or too long, then the call is refused with 400 and nothing is applied', async () => {
    const p = await pay(gw.app);
    const empty = await postBatch(gw.app, 'capture', []);
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ return_status: '0', field: 'capture_orders' });
    for (const call of ['capture', 'cancel', 'refund'] as const) {
      const res = await postBatch(
        gw.app,
        call,
        Array.from({ length: 51 }, () => ref(p, { refund_amount: '0.01' })),
      );
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ return_status: '0', field: `${call}_orders` });
    }
    const review = await postBatch(
      gw.app,
      'review',
      Array.from({ length: 101 }, () => ref(p, { review_flag: '1' })),
    );
    expect(review.status).toBe(400);
    expect(await statusOf(p)).toBe('3000');
  });

  it('when a review lists 100 orders, then all are answered', async () => {
    const p = await pay(gw.app);
    const res = await postBatch(
      gw.app,
      'review',
      Array.from({ length: 100 }, () => ref(p, { review_flag: '1' })),
    );
    expect(res.status).toBe(200);
    expect(res.body.review_orders).toHaveLength(100);
  });

  it('when one order is malformed, then the call is refused naming the field and the valid orders are not applied', async () => {
    const p = await pay(gw.app);
    const res = await postBatch(gw.app, 'capture', [ref(p), ref(p, { amount: '10.001' })]);
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('capture_orders.1.amount');
    expect(await statusOf(p)).toBe('3000');
  });

  it('when a transaction id is swapped after signing, then the call is refused with 401 and nothing is applied', async () => {
    const signedFor = await pay(gw.app);
    const target = await pay(gw.app);
    const body = batchBody('cancel', [ref(signedFor)]);
    (body.cancel_orders as Record<string, unknown>[])[0] = ref(target);
    const res = await request(gw.app)
      .post('/v1/cancel')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(JSON.stringify(body));
    expect(res.status).toBe(401);
    expect(res.body.return_status).toBe('0');
    expect(await statusOf(target)).toBe('3000');
  });
});
