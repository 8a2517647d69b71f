import { afterAll, beforeAll } from 'vitest';
import type { Server } from 'node:http';
import { freePort, startRedis, type RedisServer } from './redis.js';
import { makeGateway, type GatewayOptions, type TestGateway } from './gateway.js';

type Options = Omit<GatewayOptions, 'name' | 'redisUrl'>;

/** A test file's gateway on its own real Redis: the file uses it like a gateway (`gw.app`, `gw.deps`). */
export interface GatewayOnRedis extends TestGateway {
  readonly redis: RedisServer;
  /** the gateway's address when it listens (`listen: true`): BASE_URL is set to it */
  readonly url: string;
}

/**
 * The setup most test files share: a real Redis started before the file's tests, a gateway on it (listening
 * on a free port with its BASE_URL there when a browser must reach it), all stopped after the file. The
 * options may be computed (`async () => ({ merchants: await portalMerchants() })`).
 */
export function gatewayOnRedis(name: string, options: Options | (() => Promise<Options>) = {}, listen = false): GatewayOnRedis {
  let redis: RedisServer | undefined;
  let gw: TestGateway | undefined;
  let server: Server | undefined;
  let url = '';
  const started = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error(`gatewayOnRedis(${name}): used before its beforeAll ran`);
    return v;
  };

  beforeAll(async () => {
    redis = await startRedis(name);
    const opts = typeof options === 'function' ? await options() : options;
    const port = listen ? await freePort() : 0;
    if (listen) url = `http://127.0.0.1:${port}`;
    gw = makeGateway({ ...opts, name, redisUrl: redis.url, env: { ...opts.env, ...(listen ? { BASE_URL: url } : {}) } });
    if (listen) {
      const app = gw.app;
      server = await new Promise<Server>((resolve) => {
        const s = app.listen(port, '127.0.0.1', () => resolve(s));
      });
    }
  });

  afterAll(async () => {
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
    }
    await gw?.close();
    await redis?.stop();
  });

  return {
    get redis() {
      return started(redis);
    },
    get url() {
      return started(url || undefined);
    },
    get app() {
      return started(gw).app;
    },
    get deps() {
      return started(gw).deps;
    },
    get config() {
      return started(gw).config;
    },
    close: () => started(gw).close(),
  };
}
