import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisKv, connectRedis } from '../../src/store/redis-kv.js';
import { startRedis, type RedisServer } from '../support/redis.js';

/** Replicated commits (REDIS_MIN_REPLICAS, REDIS_CONFIRM_MS) on a real primary with one real replica. */
const CONFIRM_MS = 400;

let primary: RedisServer;
let replica: RedisServer;
let kv: RedisKv;

async function replicating(): Promise<void> {
  const started = Date.now();
  for (;;) {
    const info = await primary.client().info('replication');
    if (/connected_slaves:1/.test(info) && /state=online/.test(info)) return;
    if (Date.now() - started > 20_000) throw new Error(`the replica did not come online: ${info}`);
    await sleep(100);
  }
}

/** data outside test-artifacts, which a vitest run started meanwhile empties (a replica that cannot write its files stops) */
function dataDir(name: string): string {
  const dir = join(tmpdir(), `gw-replicated-${process.pid}`, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  primary = await startRedis('replicated-primary', ['--dir', dataDir('primary')]);
  replica = await startRedis('replicated-replica', ['--dir', dataDir('replica'), '--replicaof', '127.0.0.1', String(primary.port)]);
  await replicating();
  kv = new RedisKv(connectRedis(primary.url), { confirmMs: CONFIRM_MS });
}, 60_000);
afterAll(async () => {
  process.kill(replica.pid, 'SIGCONT');
  await kv?.close();
  await replica?.stop();
  await primary?.stop();
  rmSync(join(tmpdir(), `gw-replicated-${process.pid}`), { recursive: true, force: true });
});

let n = 0;
const key = (name: string) => `gw:{replicated}:${name}:${++n}`;

async function waits(): Promise<number> {
  const info = await primary.client().info('commandstats');
  return Number(/cmdstat_wait:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

/** Runs `body` with the replica stopped (SIGSTOP): it takes the stream into its socket's buffer, and confirms nothing. */
async function replicaStalled<T>(body: () => Promise<T>): Promise<T> {
  process.kill(replica.pid, 'SIGSTOP');
  try {
    return await body();
  } finally {
    process.kill(replica.pid, 'SIGCONT');
  }
}

describe('when the store has a replica (found at start)', () => {
  it('then each batch of commits is acknowledged once the replica has it: one WAIT for the batch', async () => {
    expect(await kv.confirmation()).toBe(1);
    const before = await waits();
    const ks = Array.from({ length: 20 }, () => key('batch'));
    const results = await Promise.all(ks.map((k) => kv.commit([{ key: k, version: 0 }], [{ op: 'put', key: k, data: `d ${k}` }])));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(await waits()).toBe(before + 1);
    // acknowledged means on the replica already
    const copy = replica.client();
    for (const k of ks) expect(await copy.hget(k, 'd')).toBe(`d ${k}`);
  });

  it('then a commit its replica does not confirm in time is refused unconfirmed, and reads of its slot answer the same until a write there is confirmed', async () => {
    const [k, earlier] = [key('stalled'), key('earlier')];
    await kv.commit([{ key: earlier, version: 0 }], [{ op: 'put', key: earlier, data: 'before the stall' }]);
    await replicaStalled(async () => {
      const started = Date.now();
      await expect(kv.commit([{ key: k, version: 0 }], [{ op: 'put', key: k, data: 'unconfirmed' }])).rejects.toMatchObject({
        code: 'STORE_UNCONFIRMED',
      });
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(CONFIRM_MS - 20);
      expect(took).toBeLessThan(CONFIRM_MS + 400);
      // the primary holds it, but it must not read back as applied: the outcome is not known
      expect(await primary.client().hget(k, 'd')).toBe('unconfirmed');
      await expect(kv.get(k)).rejects.toMatchObject({ code: 'STORE_UNCONFIRMED' });
      await expect(kv.get(earlier)).rejects.toMatchObject({ code: 'STORE_UNCONFIRMED' });
      // a conflict wrote nothing: it is answered, confirmed or not
      expect(await kv.commit([{ key: earlier, version: 0 }], [{ op: 'put', key: earlier, data: 'x' }])).toEqual({
        ok: false,
        conflict: earlier,
      });
    });
    // the replica back: the next read confirms a write of its own first, then answers what the replica has too
    expect(await kv.get(k)).toEqual({ version: 1, data: 'unconfirmed' });
    expect(await replica.client().hget(k, 'd')).toBe('unconfirmed');
    expect(await kv.get(earlier)).toEqual({ version: 1, data: 'before the stall' });
  }, 20_000);

  it("then batches of unrelated requests wait for their own confirmation, not behind one another's", async () => {
    await replicaStalled(async () => {
      const at = (p: Promise<unknown>, from: number) =>
        p.then(
          () => Date.now() - from,
          () => Date.now() - from,
        );
      const startA = Date.now();
      const a = at(kv.commit([], [{ op: 'put', key: key('a'), data: 'A' }]), startA);
      await sleep(150);
      const startB = Date.now();
      const b = at(kv.commit([], [{ op: 'put', key: key('b'), data: 'B' }]), startB);
      const [tookA, tookB] = await Promise.all([a, b]);
      // B went out on a link of its own at once: refused one confirmation time after it was sent, not two
      expect(tookA).toBeLessThan(CONFIRM_MS + 300);
      expect(tookB).toBeLessThan(CONFIRM_MS + 300);
    });
  }, 20_000);

  it("then the acquirer's write-once record travels with the batch, confirmed with it", async () => {
    const ref = key('acq');
    await replicaStalled(async () => {
      await expect(kv.putOnce(ref, 'approved')).rejects.toMatchObject({ code: 'STORE_UNCONFIRMED' });
      await expect(kv.getOnce(ref)).rejects.toMatchObject({ code: 'STORE_UNCONFIRMED' });
    });
    expect(await kv.putOnce(ref, 'asked again')).toBe('approved');
  }, 20_000);

  it('then with REDIS_MIN_REPLICAS=0 commits are acknowledged by the primary alone (no WAIT), stalled replica or not', async () => {
    const own = new RedisKv(connectRedis(primary.url), { minReplicas: 0, confirmMs: CONFIRM_MS });
    try {
      expect(await own.confirmation()).toBe(0);
      const before = await waits();
      const k = key('unconfirmed-by-choice');
      await replicaStalled(async () => {
        expect(await own.commit([{ key: k, version: 0 }], [{ op: 'put', key: k, data: 'x' }])).toEqual({ ok: true });
        expect(await own.get(k)).toEqual({ version: 1, data: 'x' });
      });
      expect(await waits()).toBe(before);
    } finally {
      await own.close();
    }
  }, 20_000);
});

describe('when the store is a lone Redis server', () => {
  it('then commits need no confirmation (REDIS_MIN_REPLICAS found to be 0), and no WAIT is sent', async () => {
    const lone = await startRedis('replicated-lone');
    const own = new RedisKv(connectRedis(lone.url));
    try {
      expect(await own.confirmation()).toBe(0);
      const k = key('lone');
      expect(await own.commit([{ key: k, version: 0 }], [{ op: 'put', key: k, data: 'x' }])).toEqual({ ok: true });
      expect(await lone.client().info('commandstats')).not.toMatch(/cmdstat_wait:/);
    } finally {
      await own.close();
      await lone.stop();
    }
  });
});
