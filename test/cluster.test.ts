import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startRedis, type RedisServer } from './support/redis.js';
import { spawnGateway } from './support/process.js';
import { SIGN_KEY, authoriseBody } from './support/gateway.js';

const children: ChildProcess[] = [];
const redises: RedisServer[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const r of redises.splice(0)) await r.stop();
});

async function waitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The JSON log lines printed so far with their message. */
const lines = (out: string, msg: string): Record<string, unknown>[] =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === msg);

/** The worker processes of a cluster primary, from /proc. */
const workerPids = (primary: number): number[] =>
  readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('WORKERS=2 (node:cluster)', () => {
  it('when started with 2 workers, then both answer, a worker that dies is replaced, and SIGTERM ends all with exit code 0', async () => {
    const redis = await startRedis('cluster');
    redises.push(redis);
    const dir = mkdtempSync(join(tmpdir(), 'gw-cluster-'));
    const merchants = join(dir, 'merchants.json');
    const account = { account_id: '1000001001', sign_key: SIGN_KEY, currencies: ['USD'] };
    writeFileSync(merchants, JSON.stringify({ merchants: [{ merchant_id: '1000001', name: 'Shop', accounts: [account] }] }));
    const port = await freePort();
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      VAULT_KEY: 'c'.repeat(64),
      MERCHANTS_FILE: merchants,
      WORKERS: '2',
    };
    const { child, output } = spawnGateway(env, 'cluster');
    children.push(child);
    await waitFor(() => lines(output(), 'gateway listening').length === 2);
    expect(new Set(lines(output(), 'gateway listening').map((l) => l.worker))).toEqual(new Set([1, 2]));

    // connections are shared out between the workers: new connections reach both, and each pays
    const answered = () => new Set(lines(output(), 'request').map((l) => l.worker));
    for (let i = 0; i < 40 && answered().size < 2; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/v1/authorise`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify(authoriseBody({ merchant_id: '1000001', account_id: '1000001001' })),
      });
      expect(await res.text()).toContain('<order_status>1</order_status>');
      await new Promise((r) => setTimeout(r, 250)); // the log is flushed every 200 ms
    }
    expect(answered()).toEqual(new Set([1, 2]));

    const [first, second] = workerPids(child.pid!);
    expect([first, second].every((p) => p !== undefined && alive(p))).toBe(true);
    process.kill(first!, 'SIGKILL');
    await waitFor(() => lines(output(), 'gateway listening').length === 3);
    expect(lines(output(), 'worker died: starting another')).toHaveLength(1);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    const workers = workerPids(child.pid!);
    expect(workers).toHaveLength(2);

    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(workers.filter(alive)).toEqual([]);
    expect(output()).toContain('all workers stopped');
  });
});
