import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHmac } from 'node:crypto';
import request from 'supertest';
import type { Express } from 'express';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { ACCOUNT_ID, authoriseBody, makeGateway, MERCHANT_ID, SIGN_KEY, testMerchants } from '../../support/gateway.js';
import { batchBody, pay, postBatch, ref, type Paid } from '../../support/operations.js';
import { redisWorld } from '../../support/redis-world.js';
import { XMLParser } from 'fast-xml-parser';

const world = redisWorld('request-signature');
const clock = new ManualClock();

/** The strict header as docs/security.md writes it: HMAC-SHA256 of "<t>.<METHOD>.<path>.<raw body>". */
function header(path: string, text: string, t = Math.floor(clock.now() / 1000), key = SIGN_KEY): string {
  return `t=${t},v1=${createHmac('sha256', key).update(`${t}.POST.${path}.${text}`).digest('hex')}`;
}

function strictMerchants() {
  const file = testMerchants();
  (file.merchants[0]!.accounts[0]! as unknown as Record<string, unknown>).signature_mode = 'strict';
  return file;
}

const post = (app: Express, path: string, text: string, signature?: string) => {
  const r = request(app).post(path).type('form');
  if (signature !== undefined) r.set('X-Signature', signature);
  return r.send(text);
};

async function strictPay(app: Express): Promise<Paid> {
  const text = JSON.stringify(authoriseBody({ items: undefined, item_total: undefined }));
  const res = await post(app, '/v1/authorise', text, header('/v1/authorise', text));
  expect(res.status).toBe(200);
  const doc = new XMLParser({ parseTagValue: false }).parse(res.text).respon;
  return { transaction_id: doc.transaction_id, order_no: doc.order_no, currency: doc.currency, amount: doc.amount, order_status: '1' };
}

describe('when an account signs strictly, the mark that makes a signature single-use', () => {
  it('then is not derived from the security code: two calls that differ only in it leave the same mark (docs/security.md#card-data)', async () => {
    const marks: string[] = [];
    const gateways = [0, 1].map(() => {
      const gw = makeGateway({ name: 'strict-mark', clock, merchants: strictMerchants() });
      const accept = gw.deps.store.acceptOnce.bind(gw.deps.store);
      gw.deps.store.acceptOnce = (m, a, mark, ttl) => {
        marks.push(mark);
        return accept(m, a, mark, ttl);
      };
      return gw;
    });
    const base = { order_no: 'STRICT-MARK-1', items: undefined, item_total: undefined };
    for (const [i, code] of ['737', '123'].entries()) {
      const text = JSON.stringify(authoriseBody({ ...base, security_code: code }));
      expect((await post(gateways[i]!.app, '/v1/authorise', text, header('/v1/authorise', text))).status).toBe(200);
    }
    expect(marks).toHaveLength(2);
    expect(marks[0]).toBe(marks[1]);
    for (const gw of gateways) await gw.close();
  });
});

describe('when an account signs strictly (finding 2)', () => {
  it('then a call without X-Signature is 401, even with a valid body signature', async () => {
    const gw = world.gateway('strict-missing', clock, { merchants: strictMerchants() });
    const res = await post(gw.app, '/v1/authorise', JSON.stringify(authoriseBody()));
    expect(res.status).toBe(401);
  });

  it("then a capture body's signature works once, for capture only, and not after 300 s", async () => {
    const gw = world.gateway('strict-replay', clock, { merchants: strictMerchants() });
    const p = await strictPay(gw.app);
    const capture = JSON.stringify(batchBody('capture', [ref(p)]));
    const captureSig = header('/v1/capture', capture);
    const first = await post(gw.app, '/v1/capture', capture, captureSig);
    expect(first.status).toBe(200);
    expect(first.body.capture_orders[0].capture_status).toBe('1');
    expect((await post(gw.app, '/v1/capture', capture, captureSig)).status).toBe(401);

    // docs/api.md#signatures signs batch bodies over ids only: the refund body carries the very same encryption_data
    const refund = batchBody('refund', [ref(p, { refund_amount: '1.00', refund_reason: 'r' })]);
    expect(refund.encryption_data).toBe(JSON.parse(capture).encryption_data);
    const refundText = JSON.stringify(refund);
    expect((await post(gw.app, '/v1/refund', refundText, captureSig)).status).toBe(401);
    expect((await post(gw.app, '/v1/refund', refundText, header('/v1/capture', refundText))).status).toBe(401);
    const stale = header('/v1/refund', refundText, Math.floor(clock.now() / 1000) - 301);
    expect((await post(gw.app, '/v1/refund', refundText, stale)).status).toBe(401);
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))?.refunded).toBe(0);

    const fresh = await post(gw.app, '/v1/refund', refundText, header('/v1/refund', refundText));
    expect(fresh.status).toBe(200);
    expect(fresh.body.refund_orders[0].refund_status).toBe('1');
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))?.refunded).toBe(100);
  });
});

describe('when an account signs as docs/api.md#signatures does (compat) and a refund body is replayed (finding 2)', () => {
  it('then an identical refund body within 10 minutes refunds once, each replay failing as a duplicate of the first', async () => {
    const gw = world.gateway('compat-refund-replay', clock);
    const p = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(p)]);
    const order = ref(p, { refund_amount: '2.00', refund_reason: 'damaged' });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await postBatch(gw.app, 'refund', [order]));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers[0]!.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reference_id: `${p.transaction_id}-01` });
    for (const replay of answers.slice(1)) {
      expect(replay.body.refund_orders[0]).toMatchObject({
        refund_status: '0',
        refund_message: `V3005:Identical to a recent refund: ${p.transaction_id}-01`,
      });
    }
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))?.refunded).toBe(200);

    clock.advance(10 * 60_000 + 1);
    const later = await postBatch(gw.app, 'refund', [order]);
    expect(later.body.refund_orders[0].refund_reference_id).toBe(`${p.transaction_id}-02`);
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))?.refunded).toBe(400);
  });
});

describe('when a call names its endpoint in another letter case or with a trailing slash (Express routes both)', () => {
  it('then a strict account still needs X-Signature, the call is served as the endpoint, and a replay is refused', async () => {
    const gw = world.gateway('strict-path-case', clock, { merchants: strictMerchants() });
    const p = await strictPay(gw.app);
    const capture = JSON.stringify(batchBody('capture', [ref(p)]));
    for (const path of ['/V1/CAPTURE', '/v1/capture/', '/v1/Capture/']) {
      const unsigned = await post(gw.app, path, capture);
      expect(unsigned.status, path).toBe(401);
    }
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))?.status).toBe('3000');
    // the endpoint's path is what X-Signature covers, whatever letter case the call was sent in
    const signature = header('/v1/capture', capture);
    const first = await post(gw.app, '/V1/Capture', capture, signature);
    expect(first.status).toBe(200);
    expect(first.body.capture_orders[0].capture_status).toBe('1');
    expect((await post(gw.app, '/v1/capture/', capture, signature)).status).toBe(401);
  });

  it('then a compat refund body repeated under another spelling of the path still refunds once (a duplicate refund)', async () => {
    const gw = world.gateway('compat-refund-path-case', clock);
    const p = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(p)]);
    const text = JSON.stringify(batchBody('refund', [ref(p, { refund_amount: '2.00', refund_reason: 'damaged' })]));
    const answers = [];
    for (const path of ['/v1/refund', '/V1/REFUND', '/v1/refund/']) answers.push(await post(gw.app, path, text));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.map((a) => a.body.refund_orders[0].refund_status)).toEqual(['1', '0', '0']);
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))?.refunded).toBe(200);
  });
});

describe('when a strict signature is dated ahead of the gateway clock (issue 36 finding 9)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('then it stays refused as a replay until its t + 300 s has passed, not only 600 s from its first use', async () => {
    // the embedded store expires keys by Date.now(): it and the gateway's clock move together here
    const start = Math.floor(Date.now() / 1000) * 1000;
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const at = new ManualClock(start);
    const gw = makeGateway({ name: 'strict-dated-ahead', clock: at, merchants: strictMerchants() });
    try {
      const text = JSON.stringify(authoriseBody({ items: undefined, item_total: undefined }));
      const paid = await post(gw.app, '/v1/authorise', text, header('/v1/authorise', text, start / 1000));
      expect(paid.status).toBe(200);
      const doc = new XMLParser({ parseTagValue: false }).parse(paid.text).respon;
      const p: Paid = { transaction_id: doc.transaction_id, order_no: doc.order_no, currency: 'USD', amount: '10.00', order_status: '1' };
      const capture = JSON.stringify(batchBody('capture', [ref(p)]));
      // dated 300 s ahead: accepted now, and until the gateway's clock reaches t + 300 s
      const ahead = header('/v1/capture', capture, start / 1000 + 300);
      expect((await post(gw.app, '/v1/capture', capture, ahead)).status).toBe(200);

      for (const later of [300_000, 600_000, 600_999]) {
        at.set(start + later);
        vi.setSystemTime(start + later);
        expect((await post(gw.app, '/v1/capture', capture, ahead)).status, `${later} ms later`).toBe(401);
      }
    } finally {
      await gw.close();
    }
  });

  it('then the store keeps the accepted signature until t + 300 s (Redis), whatever the first use', async () => {
    const start = Math.floor(Date.now() / 1000) * 1000;
    const gw = world.gateway('strict-dated-ahead-redis', new ManualClock(start), { merchants: strictMerchants() });
    const text = JSON.stringify(authoriseBody({ items: undefined, item_total: undefined }));
    const t = start / 1000 + 300;
    const res = await post(gw.app, '/v1/authorise', text, header('/v1/authorise', text, t));
    expect(res.status).toBe(200);
    const mac = createHmac('sha256', SIGN_KEY).update(`${t}.POST./v1/authorise.${text}`).digest('hex');
    const marks = await world.redis.client().keys(`gw:{${MERCHANT_ID}}:sig:${ACCOUNT_ID}:*`);
    expect(marks).toHaveLength(1);
    // the mark never names the MAC, which covers the security code
    expect(marks[0]).not.toContain(mac);
    const ttl = await world.redis.client().pttl(marks[0]!);
    // the gateway's clock stands at `start`: the signature is good until t + 300 s, 600 s and a second on
    expect(ttl).toBeGreaterThan(600_000);
    expect(ttl).toBeLessThanOrEqual(601_000);
  });
});
