import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { REDIS_DIR } from './paths.js';

export interface RedisServer {
  url: string;
  port: number;
  /** the redis-server process (the bench reads its CPU time) */
  pid: number;
  dir: string;
  /** a plain client for assertions on raw state */
  client(): Redis;
  stop(): Promise<void>;
}

/**
 * Ports for servers a test starts itself (Redis, gateway processes, shops). Each vitest worker takes its own
 * block below the kernel's ephemeral range (32768 and up, where listen(0) and outgoing connections take
 * theirs), and hands each port out once per process. Two test files running at the same time therefore never
 * pick the same port, and a port a finished server used is not given to the next one, whose old clients
 * (ioredis reconnects by itself) would otherwise reach the new server.
 */
const PORT_BASE = 20_000;
const PORT_BLOCK = 1_000;
const PORT_BLOCKS = 10;
let portsHanded = 0;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  const block = Number(process.env.VITEST_POOL_ID ?? 0) % PORT_BLOCKS;
  // a process started later in the same block (the next test file of this worker) starts elsewhere in it
  const start = process.pid % PORT_BLOCK;
  while (portsHanded < PORT_BLOCK) {
    const port = PORT_BASE + block * PORT_BLOCK + ((start + portsHanded++) % PORT_BLOCK);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port left in block ${block} (${PORT_BLOCK} handed out by this process)`);
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
 * `firstPort` (tests of this helper) is tried before a free one.
 */
export async function startRedis(name: string, extraArgs: string[] = [], firstPort?: number): Promise<RedisServer> {
  // a free port can be taken by another test process between freePort() and redis-server's bind; then our
  // server exits and the probe would reach the other process's Redis, and two tests would share (and flush)
  // one store. The probe checks the answering server is our child, and a lost port is tried again.
  for (let attempt = 1; ; attempt++) {
    const started = await spawnRedis(name, extraArgs, attempt === 1 ? firstPort : undefined);
    if (started) return started;
    if (attempt >= 5) throw new Error(`redis-server ${name} did not start: its port was taken ${attempt} times`);
  }
}

async function spawnRedis(name: string, extraArgs: string[], wanted?: number): Promise<RedisServer | undefined> {
  const port = wanted ?? (await freePort());
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
      ...extraArgs,
    ],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      probe.disconnect();
      return undefined;
    }
    try {
      await probe.connect();
      const info = await probe.info('server');
      if (!new RegExp(`^process_id:${child.pid}\\r?$`, 'm').test(info)) {
        // another process's server holds the port: ours cannot bind it
        probe.disconnect();
        child.kill('SIGKILL');
        return undefined;
      }
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
    pid: child.pid!,
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
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

export interface RedisCluster {
  /** the seed address the gateway takes: redis+cluster://h1:p1,h2:p2,h3:p3 */
  url: string;
  nodes: RedisServer[];
  stop(): Promise<void>;
}

/**
 * Starts a real Redis Cluster of three primaries, each with `replicas` replicas (none unless asked), on free
 * loopback ports, joined with `redis-cli --cluster create`, and waits until it serves every slot and every
 * replica has joined.
 */
export async function startRedisCluster(name: string, replicas = 0, extraArgs: string[] = []): Promise<RedisCluster> {
  const nodes: RedisServer[] = [];
  for (let i = 0; i < 3 * (1 + replicas); i++)
    nodes.push(await startRedis(`${name}-node${i}`, ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', ...extraArgs]));
  execFileSync(
    'redis-cli',
    ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', String(replicas), '--cluster-yes'],
    {
      stdio: 'ignore',
      timeout: 30_000,
    },
  );
  const probe = nodes[0]!.client();
  const started = Date.now();
  const inSync = async () => {
    const lines = String(await probe.cluster('NODES')).split('\n');
    return lines.filter((l) => l.split(' ')[2]?.includes('slave') && l.split(' ')[7] === 'connected').length === 3 * replicas;
  };
  while (!(await probe.cluster('INFO')).includes('cluster_state:ok') || !(await inSync())) {
    if (Date.now() - started > 20_000) throw new Error('the Redis Cluster did not reach cluster_state:ok');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `redis+cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    nodes,
    stop: async () => {
      for (const n of nodes) await n.stop();
    },
  };
}
