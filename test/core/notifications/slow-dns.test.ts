import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import type { NotificationTransport } from '../../../src/core/notifications/delivery.js';
import { redisWorld } from '../../support/redis-world.js';
import { ACCOUNT_ID, MERCHANT_ID } from '../../support/gateway.js';
import { authorise, jobOf } from '../../support/jobs.js';

/**
 * A notify host whose DNS does not answer (issue 37, point 5): resolving it has a timeout of its own, so it
 * holds neither the merchant's request nor the delivery worker. The request accepts the URL as a name that
 * does not resolve now; a delivery attempt fails and is retried with back-off.
 */
const world = redisWorld('notification-slow-dns');

/** The promise's value, or a failure naming what did not finish within ms (real time). */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('when the DNS of a notify host never answers', () => {
  it('then /v1/authorise answers at once, and the delivery attempt fails after the resolve timeout and is retried', async () => {
    const clock = new ManualClock();
    const posted: string[] = [];
    const transport: NotificationTransport = {
      // the shop's own names resolve to a public address; the notify host's name never does
      resolve: (host) => (host === 'slow-dns.example' ? new Promise<string[]>(() => undefined) : Promise.resolve(['203.0.113.10'])),
      post: async (req) => {
        posted.push(req.url);
        return { ok: true, status: 200 };
      },
    };
    const gw = world.gateway('slow-dns', clock, { transport, env: { NOTIFY_ALLOW_PRIVATE: '0' } });
    const answer = await within(4_000, '/v1/authorise', authorise(gw, { notify_url: 'https://slow-dns.example/notify' }));
    expect(answer.order_status).toBe('1');

    // the run itself does not wait for the host (it goes on after 1 s); the attempt ends at the resolve timeout
    const delivery = jobOf(gw, 'notification-delivery');
    await within(3_000, 'the delivery run', delivery.runOnce());
    await within(8_000, 'the delivery attempt', delivery.idle!());
    expect(posted).toEqual([]);
    const [rec] = await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, answer.order_no!, 1);
    expect(rec).toMatchObject({ status: 'pending', attempts: 1, last_error: 'notify_url refused: host name did not resolve within 5 s' });
    expect(rec!.next_attempt_at).toBeGreaterThan(clock.now());
  }, 20_000);
});
