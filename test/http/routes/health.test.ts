import { afterEach, describe, expect, it, vi } from 'vitest';
import express from 'express';
import request from 'supertest';
import { healthRouter, READY_MAX_LAG_MS } from '../../../src/http/routes/health.js';
import { KvGatewayStore } from '../../../src/store/gateway-store.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';

/** A store that answers nothing: the in-memory one with its ping never settling. */
class SilentKv extends MemoryKv {
  override ping(): Promise<void> {
    return new Promise(() => undefined);
  }
}

function app(kv: MemoryKv) {
  const a = express();
  a.use(healthRouter(new KvGatewayStore(kv), () => false));
  return a;
}

describe('/readyz', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when the store answers, then it is 200 and leaves no timer behind', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const res = await request(app(new MemoryKv())).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
    // the 1-second deadline is cleared with the answer: a probe every second would otherwise keep one alive each
    expect(vi.getTimerCount()).toBe(0);
  });

  it('when the store does not answer within a second, then it is 503 "store unavailable"', async () => {
    const started = Date.now();
    const res = await request(app(new SilentKv())).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'store unavailable' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
  });

  it('when the event loop lagged past the bound since the previous probe, then it is 503 "event loop lagging", and ready again once it keeps up', async () => {
    const a = app(new MemoryKv());
    expect((await request(a).get('/readyz')).status).toBe(200);
    // the process held for 5 x 700 ms, with a turn of the loop between (an overloaded instance)
    for (let i = 0; i < 5; i++) {
      const until = Date.now() + 700;
      while (Date.now() < until);
      await new Promise((r) => setImmediate(r));
    }
    const lagging = await request(a).get('/readyz');
    expect(lagging.status).toBe(503);
    expect(lagging.body).toMatchObject({ status: 'event loop lagging' });
    expect(lagging.body.lag_ms).toBeGreaterThan(READY_MAX_LAG_MS);
    expect((await request(a).get('/readyz')).status).toBe(200);
  });
});
