import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ManualClock } from '../../src/core/kernel/clock.js';
import { startRedis, type RedisServer } from './redis.js';
import { makeGateway, type GatewayOptions, type TestGateway } from './gateway.js';
import type { NotificationReceiver } from './receiver.js';

/**
 * A test file's real Redis, with the gateways and loopback receivers its tests open: all closed and the
 * data flushed after each test, the server stopped after the file.
 */
export interface RedisWorld {
  readonly redis: RedisServer;
  /** closed after each test */
  open: { close(): Promise<void> }[];
  /** stopped after each test */
  receivers: NotificationReceiver[];
  /** a gateway on this Redis, driven by `clock`, closed after the test */
  gateway(name: string, clock: ManualClock, options?: Omit<GatewayOptions, 'name' | 'redisUrl' | 'clock'>): TestGateway;
}

export function redisWorld(name: string): RedisWorld {
  let redis: RedisServer | undefined;
  const world: RedisWorld = {
    get redis() {
      if (!redis) throw new Error('Redis is not started yet');
      return redis;
    },
    open: [],
    receivers: [],
    gateway(gwName, clock, options = {}) {
      const gw = makeGateway({ ...options, name: gwName, redisUrl: world.redis.url, clock });
      world.open.push(gw);
      return gw;
    },
  };
  beforeAll(async () => {
    redis = await startRedis(name);
  });
  afterEach(async () => {
    for (const r of world.receivers.splice(0)) await r.stop();
    for (const g of world.open.splice(0)) await g.close();
    await redis?.client().flushall();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  return world;
}
