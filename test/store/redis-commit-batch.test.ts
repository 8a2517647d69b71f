import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Write } from '../../src/store/kv.js';
import { RedisKv, connectRedis } from '../../src/store/redis-kv.js';
import { startRedis, type RedisServer } from '../support/redis.js';

let redis: RedisServer;
let kv: RedisKv;

beforeAll(async () => {
  redis = await startRedis('commit-batch');
  kv = new RedisKv(connectRedis(redis.url));
});
afterAll(async () => {
  await kv?.close();
  await redis?.stop();
});

let n = 0;
const key = (name: string) => `gw:{batch}:${name}:${++n}`;

/** How many times Redis has run a script (EVALSHA, or EVAL the first time). */
async function scriptRuns(): Promise<number> {
  const info = await redis.client().info('commandstats');
  let calls = 0;
  for (const m of info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) calls += Number(m[1]);
  return calls;
}

describe('when many commits are issued in one turn of the event loop (the orders of a capture)', () => {
  it('then Redis runs them as one script, and each is applied', async () => {
    await kv.commit([], [{ op: 'put', key: key('warm'), data: 'x' }]);
    const before = await scriptRuns();
    const keys = Array.from({ length: 50 }, () => key('order'));
    const results = await Promise.all(keys.map((k) => kv.commit([{ key: k, version: 0 }], [{ op: 'put', key: k, data: `data of ${k}` }])));
    expect(await scriptRuns()).toBe(before + 1);
    expect(results.every((r) => r.ok)).toBe(true);
    for (const k of keys) expect(await kv.get(k)).toEqual({ version: 1, data: `data of ${k}` });
  });

  it('then a batch larger than one script takes is sent as several, and each commit is applied once', async () => {
    const before = await scriptRuns();
    const keys = Array.from({ length: 150 }, () => key('many'));
    const results = await Promise.all(keys.map((k) => kv.commit([{ key: k, version: 0 }], [{ op: 'put', key: k, data: 'd' }])));
    expect(await scriptRuns()).toBe(before + 3);
    expect(results.every((r) => r.ok)).toBe(true);
    for (const k of keys) expect((await kv.get(k))?.version).toBe(1);
  });

  it('then two commits on the same record in one script are checked in turn: the second sees the first and conflicts', async () => {
    const k = key('same');
    const [first, second] = await Promise.all([
      kv.commit([{ key: k, version: 0 }], [{ op: 'put', key: k, data: 'first' }]),
      kv.commit([{ key: k, version: 0 }], [{ op: 'put', key: k, data: 'second' }]),
    ]);
    expect(first).toEqual({ ok: true });
    expect(second).toEqual({ ok: false, conflict: k });
    expect(await kv.get(k)).toEqual({ version: 1, data: 'first' });
  });

  it('then a commit whose step fails in Redis fails alone: the commits before and after it in the script are applied', async () => {
    const broken = key('broken');
    // a plain string where the store keeps a record hash: HGET answers WRONGTYPE
    await redis.client().set(broken, 'not a record');
    const [a, b] = [key('a'), key('b')];
    const settled = await Promise.allSettled([
      kv.commit([{ key: a, version: 0 }], [{ op: 'put', key: a, data: 'A' }]),
      kv.commit([{ key: broken, version: 0 }], [{ op: 'put', key: broken, data: 'X' }]),
      kv.commit([{ key: b, version: 0 }], [{ op: 'put', key: b, data: 'B' }]),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await kv.get(a)).toEqual({ version: 1, data: 'A' });
    expect(await kv.get(b)).toEqual({ version: 1, data: 'B' });
    expect(await redis.client().get(broken)).toBe('not a record');
  });
});

describe('when a write after the first of a commit cannot be applied in Redis (all or nothing)', () => {
  it('then the commit fails, none of its writes is applied, and the commits beside it in the script are applied', async () => {
    const raw = redis.client();
    const [text, counters, badVersion] = [key('text'), key('counters'), key('bad-version')];
    // written outside the store: a plain string, a counter that is not a number, a record whose version is not one
    await raw.set(text, 'a string');
    await raw.hset(counters, 'tried', 'many');
    await raw.hset(badVersion, 'v', 'one', 'd', 'x');
    const cases: [string, Write][] = [
      ['zadd on a string', { op: 'zadd', key: text, score: 1, member: 'm' }],
      ['zrem on a string', { op: 'zrem', key: text, member: 'm' }],
      ['put on a string', { op: 'put', key: text, data: 'x' }],
      ['hincr on a string', { op: 'hincr', key: text, fields: ['f'], by: 1 }],
      ['hincr of a field that is not a number', { op: 'hincr', key: counters, fields: ['approved', 'tried'], by: 1 }],
      ['put on a record whose version is not a number', { op: 'put', key: badVersion, data: 'y' }],
    ];
    for (const [name, w] of cases) {
      const [rec, queue, before, after] = [key('rec'), key('queue'), key('before'), key('after')];
      const settled = await Promise.allSettled([
        kv.commit([{ key: before, version: 0 }], [{ op: 'put', key: before, data: 'B' }]),
        kv.commit(
          [{ key: rec, version: 0 }],
          [{ op: 'put', key: rec, data: '{"written_by":"c1:create"}' }, { op: 'zadd', key: queue, score: 1, member: 'queued' }, w],
        ),
        kv.commit([{ key: after, version: 0 }], [{ op: 'put', key: after, data: 'A' }]),
      ]);
      expect(
        settled.map((s) => s.status),
        name,
      ).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((settled[1] as PromiseRejectedResult).reason, name).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(await raw.exists(rec, queue), name).toBe(0);
      expect(await kv.get(before), name).toEqual({ version: 1, data: 'B' });
      expect(await kv.get(after), name).toEqual({ version: 1, data: 'A' });
    }
    expect(await raw.get(text)).toBe('a string');
    expect(await raw.hgetall(counters)).toEqual({ tried: 'many' });
    expect(await raw.hgetall(badVersion)).toEqual({ v: 'one', d: 'x' });
  });

  it('then a key a commit earlier in the same script made of another kind is refused too, before any write', async () => {
    const [made, rec] = [key('made'), key('rec')];
    const settled = await Promise.allSettled([
      kv.commit([], [{ op: 'zadd', key: made, score: 1, member: 'm' }]),
      kv.commit(
        [{ key: rec, version: 0 }],
        [
          { op: 'put', key: rec, data: 'R' },
          { op: 'put', key: made, data: 'x' },
        ],
      ),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected']);
    expect(await kv.get(rec)).toBeUndefined();
    expect(await kv.range(made, -Infinity, Infinity, 10)).toEqual([{ member: 'm', score: 1 }]);
  });

  it('then a put on a key the same commit deleted starts its version again, and a key it fills as a sorted set cannot then be put', async () => {
    const [k, z, rec] = [key('again'), key('z'), key('rec')];
    await kv.commit([], [{ op: 'put', key: k, data: 'one' }]);
    await kv.commit([], [{ op: 'put', key: k, data: 'two' }]);
    expect(
      await kv.commit(
        [],
        [
          { op: 'del', key: k },
          { op: 'put', key: k, data: 'fresh' },
          { op: 'put', key: k, data: 'fresher' },
        ],
      ),
    ).toEqual({
      ok: true,
    });
    expect(await kv.get(k)).toEqual({ version: 2, data: 'fresher' });
    await expect(
      kv.commit(
        [{ key: rec, version: 0 }],
        [
          { op: 'put', key: rec, data: 'R' },
          { op: 'zadd', key: z, score: 1, member: 'm' },
          { op: 'put', key: z, data: 'x' },
        ],
      ),
    ).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await redis.client().exists(rec, z)).toBe(0);
  });
});

describe('when commits of every kind of write share one script, their texts holding spaces and line breaks', () => {
  it('then each write lands on its own key with its own text, versions and expiry as asked', async () => {
    const [rec, kept, gone, queue, counters, other] = [key('rec'), key('kept'), key('gone'), key('queue'), key('counters'), key('other')];
    await kv.commit([], [{ op: 'put', key: gone, data: 'to delete' }]);
    await kv.commit([], [{ op: 'zadd', key: queue, score: 5, member: 'old member' }]);
    const [first, second] = await Promise.all([
      kv.commit(
        [{ key: rec, version: 0 }],
        [
          { op: 'put', key: rec, data: '{"note":"two words","lines":"a\nb"}' },
          { op: 'put', key: kept, data: 'kept 1 p 0 z 9', ttlMs: 60_000 },
          { op: 'del', key: gone },
          { op: 'zadd', key: queue, score: 1_795_562_548_363, member: 'new member 1 2' },
          { op: 'zrem', key: queue, member: 'old member' },
          { op: 'hincr', key: counters, by: 2, fields: ['card|VISA GB:tried', 'h 1 1'] },
        ],
      ),
      kv.commit([{ key: other, version: 0 }], [{ op: 'put', key: other, data: ' leading and trailing ' }]),
    ]);
    expect(first).toEqual({ ok: true });
    expect(second).toEqual({ ok: true });
    expect(await kv.get(rec)).toEqual({ version: 1, data: '{"note":"two words","lines":"a\nb"}' });
    expect(await kv.get(kept)).toEqual({ version: 1, data: 'kept 1 p 0 z 9' });
    expect(await redis.client().pttl(kept)).toBeGreaterThan(50_000);
    expect(await kv.get(gone)).toBeUndefined();
    expect(await kv.range(queue, -Infinity, Infinity, 10)).toEqual([{ member: 'new member 1 2', score: 1_795_562_548_363 }]);
    expect(await redis.client().hgetall(counters)).toEqual({ 'card|VISA GB:tried': '2', 'h 1 1': '2' });
    expect(await kv.get(other)).toEqual({ version: 1, data: ' leading and trailing ' });
    // a second commit on the checked record: its version is counted on, the expiry of a put without one removed
    expect(
      await kv.commit(
        [{ key: rec, version: 1 }],
        [
          { op: 'put', key: rec, data: 'next' },
          { op: 'put', key: kept, data: 'kept 2' },
        ],
      ),
    ).toEqual({ ok: true });
    expect(await kv.get(rec)).toEqual({ version: 2, data: 'next' });
    expect(await kv.get(kept)).toEqual({ version: 2, data: 'kept 2' });
    expect(await redis.client().pttl(kept)).toBe(-1);
  });
});

describe('when the store is closed while commits wait for their turn', () => {
  it('then they are sent before the connection closes, and applied', async () => {
    const own = new RedisKv(connectRedis(redis.url));
    await own.ping();
    const k = key('at-close');
    const pending = own.commit([{ key: k, version: 0 }], [{ op: 'put', key: k, data: 'last words' }]);
    await own.close();
    expect(await pending).toEqual({ ok: true });
    expect(await kv.get(k)).toEqual({ version: 1, data: 'last words' });
  });
});

describe("when the acquirer's write-once records (putOnce) are issued in the same turn as commits", () => {
  it("then they travel in the commits' script (no command of their own), and each answers the first record of its key", async () => {
    await kv.commit([], [{ op: 'put', key: key('warm'), data: 'x' }]);
    const ledger = [key('ref'), key('ref')];
    await redis.client().set(ledger[1]!, 'recorded earlier');
    const rec = key('rec');
    // where each SET came from: a client's address, or "lua" when a script ran it
    const monitor = await redis.client().duplicate().monitor();
    const setSources: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (args[0]?.toLowerCase() === 'set') setSources.push(source);
    });
    const scripts = await scriptRuns();
    const [first, again, earlier, committed] = await Promise.all([
      kv.putOnce(ledger[0]!, 'answer "one"\nwith a line break'),
      kv.putOnce(ledger[0]!, 'answer two'),
      kv.putOnce(ledger[1]!, 'answer three'),
      kv.commit([{ key: rec, version: 0 }], [{ op: 'put', key: rec, data: 'R' }]),
    ]);
    expect(await scriptRuns()).toBe(scripts + 1);
    await vi.waitFor(() => expect(setSources).toHaveLength(3));
    monitor.disconnect();
    expect(setSources).toEqual(['lua', 'lua', 'lua']);
    expect([first, again, earlier]).toEqual(['answer "one"\nwith a line break', 'answer "one"\nwith a line break', 'recorded earlier']);
    expect(committed).toEqual({ ok: true });
    expect(await kv.getOnce(ledger[0]!)).toBe('answer "one"\nwith a line break');
    // a write-once record never expires
    expect(await redis.client().pttl(ledger[0]!)).toBe(-1);
  });

  it('then a record whose key holds something else fails alone with the store unavailable, and the commits beside it are applied', async () => {
    const list = key('list');
    await redis.client().rpush(list, 'not a record');
    const rec = key('rec');
    const settled = await Promise.allSettled([
      kv.putOnce(list, 'answer'),
      kv.commit([{ key: rec, version: 0 }], [{ op: 'put', key: rec, data: 'R' }]),
    ]);
    expect(settled[0]).toMatchObject({ status: 'rejected', reason: { code: 'STORE_UNAVAILABLE' } });
    expect(settled[1]).toEqual({ status: 'fulfilled', value: { ok: true } });
    expect(await redis.client().lrange(list, 0, -1)).toEqual(['not a record']);
  });
});
