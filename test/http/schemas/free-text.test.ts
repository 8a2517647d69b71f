import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { XMLParser } from 'fast-xml-parser';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { luhnValid, maskCardNumbers } from '../../../src/core/kernel/cards.js';
import { authoriseBody, MERCHANT_ID } from '../../support/gateway.js';
import { checkoutBody } from '../../support/checkout.js';
import { postBatch, ref } from '../../support/operations.js';
import { redisWorld } from '../../support/redis-world.js';
import { LOG_DIR } from '../../support/paths.js';

const world = redisWorld('free-text');
const clock = new ManualClock();

/** Card numbers (Luhn-valid) that a shopper or an operator might type into free text. */
const TYPED = ['4000 0566 5566 5556', '5105-1051-0510-5100', '378282246310005', '6011111111111117'];
const digits = (s: string) => s.replace(/\D/g, '');

/** Every value stored under the merchant's keys, as one text. */
async function storedText(): Promise<string> {
  const client = world.redis.client();
  const out: string[] = [];
  for (const key of await client.keys(`gw:{${MERCHANT_ID}}:*`)) {
    const type = await client.type(key);
    if (type === 'hash') out.push(JSON.stringify(await client.hgetall(key)));
    else if (type === 'zset') out.push((await client.zrange(key, '0', '-1')).join(' '));
    else if (type === 'string') out.push((await client.get(key)) ?? '');
  }
  return out.join('\n');
}

describe('when card numbers are typed into free-text fields (finding 9)', () => {
  it('then runs of 12 to 19 digits that pass Luhn are masked, and other numbers are kept', () => {
    expect(maskCardNumbers('call 4000 0566 5566 5556 now')).toBe('call 400005***5556 now');
    expect(maskCardNumbers('ORD-4242424242424242')).toBe('ORD-424242***4242');
    expect(maskCardNumbers('invoice 1234567890123 and 4242424242424241')).toBe('invoice 1234567890123 and 4242424242424241');
    expect(maskCardNumbers('4242424242424242424242')).toBe('4242424242424242424242'); // 22 digits: not a card number
  });

  it('then a payment, a refund and a checkout store, answer and log them masked', async () => {
    const gw = world.gateway('free-text', clock);
    const [a, b, c, d] = TYPED as [string, string, string, string];
    // the suffix holds no digit run of its own (a random 13-digit run is Luhn-valid one time in ten, and masked)
    const orderNo = `ORD-${digits(a)}-X${Date.now().toString(36)}`;
    const res = await request(gw.app)
      .post('/v1/authorise')
      .send(
        JSON.stringify(
          authoriseBody({ order_no: orderNo, first_name: `Ada ${b}`, note: `card ${c}`, items: undefined, item_total: undefined }),
        ),
      );
    expect(res.status).toBe(200);
    const doc = new XMLParser({ parseTagValue: false }).parse(res.text).respon;
    expect(doc.order_no).toBe(orderNo.replace(digits(a), '400005***5556'));
    expect(doc.note).toBe('card 378282***0005');
    const paid = { transaction_id: doc.transaction_id, order_no: doc.order_no, currency: 'USD', amount: '10.00', order_status: '1' };
    await postBatch(gw.app, 'capture', [ref(paid)]);
    const refund = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '1.00', refund_reason: `typed ${d} by mistake` })]);
    expect(refund.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reason: 'typed 601111***1117 by mistake' });
    const checkout = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .send(JSON.stringify(checkoutBody({ last_name: b, note: c })));
    expect(checkout.status).toBe(200);

    const stored = await storedText();
    const log = readFileSync(join(LOG_DIR, 'free-text.log'), 'utf8');
    for (const typed of TYPED) {
      expect(stored).not.toContain(digits(typed));
      expect(stored).not.toContain(typed);
      expect(log).not.toContain(digits(typed));
    }
    expect(stored).toContain('601111***1117');
  });
});

describe('when a number in free text is under no card issuer prefix (a date or time stamp, a numeric order number)', () => {
  /** The first time in milliseconds from `from` whose 13 digits pass the Luhn check (one in ten does). */
  const luhnMillis = (from: number): string => {
    for (let t = from; ; t++) if (luhnValid(String(t))) return String(t);
  };

  it('then it is kept, Luhn-valid or not, and card numbers of every issuer prefix are still masked', () => {
    const millis = luhnMillis(Date.now());
    expect(maskCardNumbers(`order-${millis}`)).toBe(`order-${millis}`);
    expect(maskCardNumbers('2026112300000006')).toBe('2026112300000006'); // a date stamp, Luhn-valid
    expect(maskCardNumbers('7000000000000005')).toBe('7000000000000005'); // Luhn-valid, no issuer's prefix
    expect(maskCardNumbers('2223003122003222')).toBe('222300***3222'); // Mastercard 2-series
    expect(maskCardNumbers('2200000000000004')).toBe('220000***0004'); // Mir
    expect(maskCardNumbers('4222222222222')).toBe('422222***2222'); // a 13-digit Visa
    expect(maskCardNumbers('8100000000000002')).toBe('810000***0002'); // RuPay
  });

  it('then two date-stamped order numbers with the same first 6 and last 4 digits are two orders', async () => {
    const gw = world.gateway('free-text-dates', clock);
    // both pass the Luhn check: masked, they were one order key, and the second new order was refused (409)
    const suffix = Date.now().toString(36).toUpperCase();
    const ids = new Set<string>();
    for (const orderNo of [`2026110000074321-${suffix}`, `2026110000154321-${suffix}`]) {
      const doc = await authoriseAnswer(gw.app, orderNo);
      expect(doc.order_no).toBe(orderNo);
      ids.add(doc.transaction_id!);
    }
    expect(ids.size).toBe(2);
  });

  it('then an order_no built from a time in milliseconds is answered as sent', async () => {
    const gw = world.gateway('free-text-stamp', clock);
    // a Luhn-valid stamp: before card numbers needed an issuer prefix, one such order in ten was answered masked
    const orderNo = `order-${luhnMillis(Date.now())}`;
    expect((await authoriseAnswer(gw.app, orderNo)).order_no).toBe(orderNo);
    expect(await storedText()).toContain(orderNo);
  });
});

/** Pays an order through /v1/authorise (approved) and answers the `respon` document's fields. */
async function authoriseAnswer(app: Express, orderNo: string): Promise<Record<string, string>> {
  const res = await request(app)
    .post('/v1/authorise')
    .send(JSON.stringify(authoriseBody({ order_no: orderNo, items: undefined, item_total: undefined })));
  expect(res.status).toBe(200);
  return new XMLParser({ parseTagValue: false }).parse(res.text).respon as Record<string, string>;
}
