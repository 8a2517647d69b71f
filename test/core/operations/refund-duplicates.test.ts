import { afterEach, describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import type { CardConnector } from '../../../src/core/ports/card-connector.js';
import { makeGateway, MERCHANT_ID, testMerchants, type TestGateway } from '../../support/gateway.js';
import { batchBody, pay, postBatch, ref, type Paid } from '../../support/operations.js';

// docs/api.md#errors-and-idempotency: a refund identical to one applied within the account's refund_duplicate_seconds is a per-order
// failure naming the earlier refund; only applied refunds count; a call with an Idempotency-Key follows the key.

const open: TestGateway[] = [];
afterEach(async () => {
  for (const gw of open.splice(0)) await gw.close();
});

function gateway(
  name: string,
  clock: ManualClock,
  opts: { windowSeconds?: number; wrapConnector?: (c: CardConnector) => CardConnector } = {},
) {
  const merchants = testMerchants();
  if (opts.windowSeconds !== undefined) {
    (merchants.merchants[0]!.accounts[0]! as unknown as Record<string, unknown>).refund_duplicate_seconds = opts.windowSeconds;
  }
  const gw = makeGateway({ name: `refund-duplicates-${name}`, clock, merchants, wrapConnector: opts.wrapConnector });
  open.push(gw);
  return gw;
}

async function captured(gw: TestGateway): Promise<Paid> {
  const p = await pay(gw.app);
  expect((await postBatch(gw.app, 'capture', [ref(p)])).body.capture_orders[0].capture_status).toBe('1');
  return p;
}

const refunded = async (gw: TestGateway, p: Paid) => (await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))!.refunded;

/** The sandbox, but its first refund is refused by the acquirer (as a cut-off or a limit reached would). */
function refusesFirstRefund(c: CardConnector): CardConnector {
  let refused = false;
  return {
    code: c.code,
    displayName: c.displayName,
    authorise: (req) => c.authorise(req),
    completeChallenge: (r, code, reference) => c.completeChallenge(r, code, reference),
    capture: (r, amount, currency, reference) => c.capture(r, amount, currency, reference),
    void: (r, reference) => c.void(r, reference),
    status: (reference) => c.status(reference),
    refund: (r, amount, currency, reference) => {
      if (refused) return c.refund(r, amount, currency, reference);
      refused = true;
      return Promise.resolve({ ok: false, message: 'acquirer: refund refused, try later' });
    },
  };
}

describe('when a refund was refused, then the same refund sent again is tried again, not answered from memory', () => {
  it('when the acquirer refused the first refund, then the same body sent again is applied', async () => {
    const gw = gateway('refused', new ManualClock(), { wrapConnector: refusesFirstRefund });
    const p = await captured(gw);
    const order = ref(p, { refund_amount: '1.00', refund_reason: 'damaged' });
    const first = await postBatch(gw.app, 'refund', [order]);
    expect(first.body.refund_orders[0]).toMatchObject({ refund_status: '0', refund_message: expect.stringMatching(/^V4001:/) });
    const again = await postBatch(gw.app, 'refund', [order]);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    // (the refused refund's number may stay reserved: docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery never reuses a reference once sent)
    expect(again.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reference_id: expect.stringMatching(/-0[12]$/) });
    expect(await refunded(gw, p)).toBe(100);
  });

  it('when a refund is sent before the capture, then it fails, and the same body after the capture is applied', async () => {
    const gw = gateway('before-capture', new ManualClock());
    const p = await pay(gw.app);
    const order = ref(p, { refund_amount: '2.00', refund_reason: 'early' });
    const early = await postBatch(gw.app, 'refund', [order]);
    expect(early.body.refund_orders[0]).toMatchObject({ refund_status: '0', refund_message: 'V2008:Transaction has not been captured' });
    expect((await postBatch(gw.app, 'capture', [ref(p)])).body.capture_orders[0].capture_status).toBe('1');
    const later = await postBatch(gw.app, 'refund', [order]);
    expect(later.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reference_id: `${p.transaction_id}-01` });
    expect(await refunded(gw, p)).toBe(200);
  });
});

describe('when a refund repeats one applied within refund_duplicate_seconds (default 600)', () => {
  it('then the repeat is a per-order failure naming the first refund_reference_id and nothing more is refunded', async () => {
    const clock = new ManualClock();
    const gw = gateway('repeat', clock);
    const p = await captured(gw);
    const order = ref(p, { refund_amount: '2.00', refund_reason: 'damaged' });
    const first = await postBatch(gw.app, 'refund', [order]);
    expect(first.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reference_id: `${p.transaction_id}-01` });

    clock.advance(599_000);
    const repeat = await postBatch(gw.app, 'refund', [order]);
    expect(repeat.status).toBe(200);
    expect(repeat.body.return_status).toBe('1');
    expect(repeat.body.refund_orders[0]).toMatchObject({
      refund_status: '0',
      refund_message: `V3005:Identical to a recent refund: ${p.transaction_id}-01`,
      refund_reference_id: '',
      refund_reference: '',
    });
    expect(await refunded(gw, p)).toBe(200);

    // the window runs from the applied refund: past it, the same refund is a new one
    clock.advance(1_000);
    const after = await postBatch(gw.app, 'refund', [order]);
    expect(after.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reference_id: `${p.transaction_id}-02` });
    expect(await refunded(gw, p)).toBe(400);
  });

  it('then two identical orders in one batch apply once, and the second names the first', async () => {
    const gw = gateway('one-batch', new ManualClock());
    const p = await captured(gw);
    const order = ref(p, { refund_amount: '1.00', refund_reason: 'twice in one call' });
    const res = await postBatch(gw.app, 'refund', [order, order]);
    expect(res.body.refund_orders.map((o: Record<string, string>) => [o.refund_status, o.refund_message])).toEqual([
      ['1', 'V0000:Success'],
      ['0', `V3005:Identical to a recent refund: ${p.transaction_id}-01`],
    ]);
    expect(await refunded(gw, p)).toBe(100);
  });

  it('then a refund of the same amount with another reason is a second refund, applied', async () => {
    const gw = gateway('other-reason', new ManualClock());
    const p = await captured(gw);
    const one = await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '1.00', refund_reason: 'first item' })]);
    const two = await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '1.00', refund_reason: 'second item' })]);
    expect([one.body.refund_orders[0].refund_status, two.body.refund_orders[0].refund_status]).toEqual(['1', '1']);
    expect(two.body.refund_orders[0].refund_reference_id).toBe(`${p.transaction_id}-02`);
    expect(await refunded(gw, p)).toBe(200);
  });

  it('when the account sets refund_duplicate_seconds to 0, then identical refunds are all applied', async () => {
    const gw = gateway('off', new ManualClock(), { windowSeconds: 0 });
    const p = await captured(gw);
    const order = ref(p, { refund_amount: '1.00', refund_reason: 'same' });
    const answers = [await postBatch(gw.app, 'refund', [order]), await postBatch(gw.app, 'refund', [order])];
    expect(answers.map((a) => a.body.refund_orders[0].refund_reference_id)).toEqual([`${p.transaction_id}-01`, `${p.transaction_id}-02`]);
    expect(await refunded(gw, p)).toBe(200);
  });
});

describe('when identical refunds carry an Idempotency-Key, then the key decides, not the duplicate window', () => {
  const keyed = (gw: TestGateway, body: Record<string, unknown>, key: string) =>
    request(gw.app).post('/v1/refund').type('form').set('Idempotency-Key', key).send(JSON.stringify(body));

  it('then the same key answers the first result, and a new key applies the refund again', async () => {
    const gw = gateway('keyed', new ManualClock());
    const p = await captured(gw);
    const body = batchBody('refund', [ref(p, { refund_amount: '1.00', refund_reason: 'keyed' })]);
    const first = await keyed(gw, body, 'rf-1');
    const replay = await keyed(gw, body, 'rf-1');
    expect(first.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reference_id: `${p.transaction_id}-01` });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await refunded(gw, p)).toBe(100);

    const second = await keyed(gw, body, 'rf-2');
    expect(second.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reference_id: `${p.transaction_id}-02` });
    expect(await refunded(gw, p)).toBe(200);
  });
});
