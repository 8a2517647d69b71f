import { describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { redisWorld } from '../../support/redis-world.js';
import { NotificationReceiver } from '../../support/receiver.js';
import { authorise, jobOf } from '../../support/jobs.js';

/**
 * Due notifications go out with a bound on sends in flight per notify host, and a run of the delivery worker
 * does not wait for a slow host (issue 37, point 5): the worker used to send a merchant's 50 due
 * notifications with one Promise.all and wait for the slowest, so one slow host held every other
 * notification, of every merchant, until it answered.
 */
const world = redisWorld('notification-host-lanes');

/** A merchant's notify endpoint that answers 200 after delayMs, counting the requests it holds at once. */
class SlowHost {
  readonly received: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private server: Server | undefined;
  port = 0;
  constructor(private readonly delayMs: number) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/notify`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push(new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('notify_id') ?? '');
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        setTimeout(() => {
          this.inFlight--;
          res.writeHead(200).end('OK');
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

describe('when one notify host answers slowly and has ten notifications due', () => {
  it("then at most 4 are in flight to it at once, another host's notification is delivered meanwhile, and all ten arrive", async () => {
    const clock = new ManualClock();
    const gw = world.gateway('host-lanes', clock);
    const slow = await new SlowHost(2_500).start();
    world.open.push({ close: () => slow.close() });
    const fast = await new NotificationReceiver([200]).start();
    world.receivers.push(fast);
    for (let i = 0; i < 10; i++) await authorise(gw, { notify_url: slow.url });
    const delivery = jobOf(gw, 'notification-delivery');

    const started = Date.now();
    await delivery.runOnce();
    expect(slow.maxInFlight).toBe(4);
    // the run did not wait for the slow host's answers (2.5 s): its four sends are still out
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(slow.inFlight).toBe(4);

    await authorise(gw, { notify_url: fast.url });
    await delivery.runOnce();
    expect(fast.received).toHaveLength(1);
    expect(slow.inFlight).toBe(4);

    // the slow host's other six go out as its places free, never more than four at once
    const deadline = Date.now() + 20_000;
    while (slow.received.length < 10 && Date.now() < deadline) {
      clock.advance(1_000);
      await delivery.runOnce();
    }
    await delivery.idle?.();
    expect(new Set(slow.received).size).toBe(10);
    expect(slow.maxInFlight).toBe(4);
  }, 30_000);
});
