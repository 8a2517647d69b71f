import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { ACCOUNT_ID, authoriseBody, MERCHANT_ID } from '../support/gateway.js';
import { checkoutBody } from '../support/checkout.js';
import { batchBody, pay, ref } from '../support/operations.js';
import { CARDS } from '../support/cards.js';
import { redisWorld } from '../support/redis-world.js';
import { LOG_DIR } from '../support/paths.js';

/**
 * docs/security.md#card-data, issue 36 finding 8: a card number typed where no card belongs is masked (first 6, `***`, last 4)
 * before it is kept or logged: extra checkout fields, the X-Request-Id header, an Idempotency-Key (hashed in
 * Redis key names), a 3-D Secure challenge answer. Each case types its own card number (Luhn-valid, a card
 * network's prefix, digits only), so the scan of Redis files and logs after the suite (test/scan) would find
 * any of them left in clear too.
 */
const world = redisWorld('masking-everywhere');
const clock = new ManualClock();
const xml = new XMLParser({ parseTagValue: false });

/** Everything this test file's Redis has written: its append-only files (every command, flushed or not). */
function redisFiles(): string {
  const dir = world.redis.dir;
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .map((f) => readFileSync(f, 'latin1'))
    .join('\n');
}

const logOf = (name: string): string => readFileSync(join(LOG_DIR, `${name}.log`), 'utf8');

describe('when a card number is sent in an undocumented /v1/checkout field (finding 8)', () => {
  it('then the stored session, the loading page and the log hold it masked, as text or as a JSON number', async () => {
    const gw = world.gateway('masking-checkout-extra', clock);
    const body = checkoutBody({ x_extra: 'card 4111111111111111', x_number: 4_012_888_888_881_881, x_plain: 'SKU-77' });
    const res = await request(gw.app).post('/v1/checkout').type('form').send(JSON.stringify(body));
    expect(res.status).toBe(200);
    expect(res.text).toContain('value="card 411111***1111"');
    expect(res.text).toContain('value="401288***1881"');
    expect(res.text).toContain('value="SKU-77"');
    const stored = redisFiles();
    expect(stored).toContain('card 411111***1111');
    expect(stored).toContain('401288***1881');
    for (const typed of ['4111111111111111', '4012888888881881']) {
      expect(stored).not.toContain(typed);
      expect(logOf('masking-checkout-extra')).not.toContain(typed);
    }
  });
});

describe('when a card number is typed into a documented text field that is kept (docs/security.md#card-data)', () => {
  it('then the checkout session and the payment store it masked', async () => {
    const gw = world.gateway('masking-documented-text', clock);
    const typed = {
      shopper_phone: '3566002020360505',
      user_agent: 'Agent/4000056655665556',
      session_id: 'sess-5200828282828210',
      cookie_old: 'c=6011000990139424',
    };
    const checkout = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .type('form')
      .send(JSON.stringify(checkoutBody(typed)));
    expect(checkout.status).toBe(200);
    const paid = await request(gw.app)
      .post('/v1/authorise')
      .type('form')
      .send(JSON.stringify(authoriseBody({ note: 'ref 4000000760000002' })));
    expect(paid.status).toBe(200);
    const stored = redisFiles();
    for (const masked of ['356600***0505', 'Agent/400005***5556', 'sess-520082***8210', 'c=601100***9424', '400000***0002'])
      expect(stored).toContain(masked);
    for (const digits of ['3566002020360505', '4000056655665556', '5200828282828210', '6011000990139424', '4000000760000002'])
      expect(stored).not.toContain(digits);
  });
});

describe('when a card number is sent as X-Request-Id (finding 8)', () => {
  it('then the answer, the error body and the log carry the id masked', async () => {
    const gw = world.gateway('masking-request-id', clock);
    const ok = await request(gw.app).get('/healthz').set('X-Request-Id', '5105105105105100');
    expect(ok.status).toBe(200);
    expect(ok.headers['x-request-id']).toBe('510510***5100');
    const refused = await request(gw.app).post('/v1/capture').set('X-Request-Id', 'req-5105105105105100').type('form').send('{');
    expect(refused.status).toBe(400);
    expect(refused.body.request_id).toBe('req-510510***5100');
    const log = logOf('masking-request-id');
    expect(log).toContain('"request_id":"510510***5100"');
    expect(log).not.toContain('5105105105105100');
  });

  it('then an ordinary request id is kept as sent', async () => {
    const gw = world.gateway('masking-request-id-plain', clock);
    const res = await request(gw.app).get('/healthz').set('X-Request-Id', 'trace-20261125-000123');
    expect(res.headers['x-request-id']).toBe('trace-20261125-000123');
  });
});

describe('when a card number is sent as an Idempotency-Key (finding 8)', () => {
  it('then no Redis key name holds it, and the key still replays the first answer', async () => {
    const gw = world.gateway('masking-idempotency-key', clock);
    const p = await pay(gw.app);
    const body = JSON.stringify(batchBody('capture', [ref(p)]));
    const key = 'capture-378282246310005';
    const send = () => request(gw.app).post('/v1/capture').type('form').set('Idempotency-Key', key).send(body);
    const first = await send();
    const again = await send();
    expect(first.status).toBe(200);
    expect(first.body.capture_orders[0].capture_status).toBe('1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    const names = await world.redis.client().keys(`gw:{${MERCHANT_ID}}:*`);
    expect(names.some((n) => n.includes(':idem'))).toBe(true);
    expect(names.filter((n) => n.includes('378282'))).toEqual([]);
    expect(redisFiles()).not.toContain('378282246310005');
  });

  it('then a record kept before key names were hashed (under the key as sent) still replays the first answer', async () => {
    const gw = world.gateway('masking-idempotency-former', clock);
    const p = await pay(gw.app);
    const body = JSON.stringify(batchBody('capture', [ref(p)]));
    const send = () => request(gw.app).post('/v1/capture').type('form').set('Idempotency-Key', 'capture-former-1').send(body);
    const first = await send();
    expect(first.body.capture_orders[0].capture_status).toBe('1');
    // the record moved to the name an earlier version gave it
    const client = world.redis.client();
    const [hashed] = await client.keys(`gw:{${MERCHANT_ID}}:idem-key:*`);
    expect(hashed).toBeDefined();
    await client.rename(hashed!, `gw:{${MERCHANT_ID}}:idem:${ACCOUNT_ID}:capture-former-1`);
    const again = await send();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    const other = await request(gw.app)
      .post('/v1/capture')
      .type('form')
      .set('Idempotency-Key', 'capture-former-1')
      .send(JSON.stringify(batchBody('capture', [ref(await pay(gw.app))])));
    expect(other.status).toBe(409);
  });
});

describe('when a shopper types a card number as the 3-D Secure challenge answer (finding 8)', () => {
  it('then the claim kept while it is sent holds it masked, the log never holds it, and the answer fails as a wrong code', async () => {
    const gw = world.gateway('masking-challenge-answer', clock);
    const res = await request(gw.app)
      .post('/v1/authorise')
      .type('form')
      .send(JSON.stringify(authoriseBody({ card: CARDS.challenge, open3d: 'do3DS' })));
    const doc = xml.parse(res.text).respon as { order_status: string; issuer_url: string; transaction_id: string };
    expect(doc.order_status).toBe('2');
    const answered = await request(gw.app).post(new URL(doc.issuer_url).pathname).type('form').send({ code: '6011111111111117' });
    expect(answered.status).toBe(200);
    expect((await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id))?.status).toBe('4300');
    const stored = redisFiles();
    expect(stored).toContain('601111***1117');
    for (const typed of ['6011111111111117']) {
      expect(stored).not.toContain(typed);
      expect(logOf('masking-challenge-answer')).not.toContain(typed);
    }
  });
});
