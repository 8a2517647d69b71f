import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { REDIS_DIR } from './paths.js';

export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  /** a plain client for assertions on raw state */
  client(): Redis;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

function redisBinary(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('redis-server is not installed: run `npm test` (it installs it as root) or apt-get install redis-server');
  }
}

/**
 * Starts a real redis-server of our own on a free loopback port, with its data (RDB and append-only file,
 * fsync on every write) under test-artifacts/redis/<name>, where the card-data scan reads it after the suite.
 */
export async function startRedis(name: string): Promise<RedisServer> {
  const port = await freePort();
  const dir = join(REDIS_DIR, `${name}-${port}`);
  mkdirSync(dir, { recursive: true });
  const child: ChildProcess = spawn(
    redisBinary(),
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '',
      '--rdbcompression',
      'no',
      '--daemonize',
      'no',
      '--protected-mode',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  const started = Date.now();
  for (;;) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch {
      probe.disconnect();
      if (Date.now() - started > 10_000) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const clients: Redis[] = [probe];
  return {
    url,
    port,
    dir,
    client: () => {
      const c = new Redis(url);
      clients.push(c);
      return c;
    },
    stop: async () => {
      // write an RDB snapshot too, so the scan covers both persistence formats
      await probe.save().catch(() => undefined);
      for (const c of clients) c.disconnect();
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}
