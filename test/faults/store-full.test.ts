import { afterAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../support/redis.js';
import { MERCHANT_ID } from '../support/gateway.js';
import { authoriseLoad, killGateways, nonJsonLines, sleep, startOnRedis } from './support/gateway-process.js';

/**
 * Redis full (maxmemory reached, noeviction): it answers reads and PING but refuses every change. The gateway
 * is not ready while so, and answers STORE_UNAVAILABLE only for orders of which nothing was written
 * (docs/error-codes.md); once Redis takes writes again, it is ready again.
 */
const servers: RedisServer[] = [];
afterAll(async () => {
  killGateways();
  await Promise.all(servers.map((s) => s.stop()));
});

describe('the store refusing writes (out of memory)', () => {
  it('when Redis is full, then /readyz answers 503, authorisations answer STORE_UNAVAILABLE with nothing stored, and readiness returns when it takes writes again', async () => {
    const redis = await startRedis('store-full', ['--maxmemory-policy', 'noeviction']);
    servers.push(redis);
    const gw = await startOnRedis('store-full', redis);
    const admin = redis.client();
    const load = authoriseLoad(gw.base, 4);
    while (load.answers.length < 20) await sleep(20);

    const fullAt = Date.now();
    await admin.config('SET', 'maxmemory', '1');
    await sleep(300);
    const readyWhileFull = await fetch(`${gw.base}/readyz`);
    const bodyWhileFull = (await readyWhileFull.json()) as { status: string };
    await sleep(1_000);
    const freedAt = Date.now();
    await admin.config('SET', 'maxmemory', '0');
    const readyAfter = (await fetch(`${gw.base}/readyz`)).status;
    await load.stop();

    const full = load.answers.filter((a) => a.at >= fullAt + 50 && a.at + a.ms < freedAt);
    const codes = [...new Set(full.map((a) => `${a.status} ${a.code}`))];
    console.info(`store full: ${full.length} answers while full: ${codes.join(', ')}`);
    expect(readyWhileFull.status).toBe(503);
    expect(bodyWhileFull.status).toBe('store refuses writes');
    expect(readyAfter).toBe(200);
    expect(full.length).toBeGreaterThan(5);
    expect(full.filter((a) => a.status !== 503 || !a.retryAfter)).toEqual([]);

    // no order answered STORE_UNAVAILABLE is stored
    const keys = await admin.keys(`gw:{${MERCHANT_ID}}:pay:*`);
    const stored = new Set(
      (await Promise.all(keys.map((k) => admin.hget(k, 'd')))).map((d) => (JSON.parse(d!) as { order_no: string }).order_no),
    );
    const unavailable = load.answers.filter((a) => a.code === 'STORE_UNAVAILABLE');
    expect(unavailable.length).toBeGreaterThan(0);
    expect(unavailable.filter((a) => stored.has(a.order_no)).map((a) => a.order_no)).toEqual([]);
    // the log says the store refused (out of memory), not that it did not answer
    expect(gw.output()).toContain('the store refused the change (OOM');
    expect(nonJsonLines(gw.output())).toEqual([]);
  }, 60_000);
});
