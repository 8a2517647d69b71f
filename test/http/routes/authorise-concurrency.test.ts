import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { authoriseBody, MERCHANT_ID } from '../../support/gateway.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

const xml = new XMLParser({ parseTagValue: false });

const gw = gatewayOnRedis('authorise-concurrency');

describe('when 50 identical /v1/authorise requests arrive at once (real Redis)', () => {
  it('then exactly one transaction exists and every caller gets its answer', async () => {
    const body = authoriseBody();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        request(gw.app).post('/v1/authorise').set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body)),
      ),
    );
    const ids = new Set<string>();
    for (const res of answers) {
      expect(res.status).toBe(200);
      const doc = xml.parse(res.text).respon;
      expect(doc.order_status).toBe('1');
      ids.add(doc.transaction_id);
    }
    expect(ids.size).toBe(1);
    const keys = await gw.redis.client().keys(`gw:{${MERCHANT_ID}}:pay:*`);
    expect(keys).toHaveLength(1);
  });
});
