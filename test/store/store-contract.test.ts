import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KvStore, Write } from '../../src/store/kv.js';
import { MemoryKv } from '../../src/store/memory-kv.js';
import { RedisKv, connectRedis } from '../../src/store/redis-kv.js';
import { KvGatewayStore, keys } from '../../src/store/gateway-store.js';
import type { Payment } from '../../src/core/records/payment.js';
import type { OutboxRecord } from '../../src/core/records/outbox-record.js';
import type { DiscrepancyRecord, ReconcilePass } from '../../src/core/records/reconcile-records.js';
import { startRedis, type RedisServer } from '../support/redis.js';

let redis: RedisServer;
let redisKv: RedisKv;

beforeAll(async () => {
  redis = await startRedis('store-contract');
  redisKv = new RedisKv(connectRedis(redis.url));
});
afterAll(async () => {
  await redisKv?.close();
  await redis?.stop();
});

let n = 0;
const key = (name: string) => `gw:{contract}:${name}:${++n}`;

function payment(txn: string, orderNo: string): Payment {
  return {
    version: 0,
    transaction_id: txn,
    merchant_id: 'contract',
    account_id: 'acc',
    order_no: orderNo,
    currency: 'USD',
    amount: 1000,
    status: '1000',
    result_code: '2003',
    fingerprint: 'f',
    source: 'direct',
    threeds: { mode: 'no3DS', challenge_pending: false, result: '' },
    risk: { action: 'ACCEPT', score: 0, checks: [] },
    connector: 'Sandbox',
    captured: 0,
    refunded: 0,
    refunds: [],
    note: '',
    website: '',
    notify_url: '',
    shopper_email: '',
    created_at: 1,
    updated_at: 1,
  };
}

/** One suite, run against both adapters: they must behave the same. */
describe.each([
  ['memory', () => new MemoryKv() as KvStore],
  ['redis', () => redisKv as KvStore],
])('KvStore contract (%s)', (_name, make) => {
  it('when a record is put, then it reads back with version 1, and each put adds one', async () => {
    const kv = make();
    const k = key('rec');
    expect(await kv.get(k)).toBeUndefined();
    expect(await kv.commit([{ key: k, version: 0 }], [{ op: 'put', key: k, data: 'a' }])).toEqual({ ok: true });
    expect(await kv.get(k)).toEqual({ version: 1, data: 'a' });
    expect((await kv.commit([{ key: k, version: 1 }], [{ op: 'put', key: k, data: 'b' }])).ok).toBe(true);
    expect(await kv.get(k)).toEqual({ version: 2, data: 'b' });
  });

  it('when a commit puts a checked record twice, an unchecked one, and a checked record with a time to live put without one, then versions count each put and the expiry goes', async () => {
    const kv = make();
    const checked = key('checked');
    const free = key('free');
    const expiring = key('expiring');
    await kv.commit([], [{ op: 'put', key: free, data: 'f1' }]);
    await kv.commit([], [{ op: 'put', key: expiring, data: 'e1', ttlMs: 60 }]);
    const result = await kv.commit(
      [
        { key: checked, version: 0 },
        { key: expiring, version: 1 },
      ],
      [
        { op: 'put', key: checked, data: 'c1' },
        { op: 'put', key: free, data: 'f2' },
        { op: 'put', key: checked, data: 'c2' },
        { op: 'put', key: expiring, data: 'e2' },
      ],
    );
    expect(result).toEqual({ ok: true });
    await sleep(150);
    expect(await kv.get(checked)).toEqual({ version: 2, data: 'c2' });
    expect(await kv.get(free)).toEqual({ version: 2, data: 'f2' });
    expect(await kv.get(expiring)).toEqual({ version: 2, data: 'e2' });
  });

  it('when a condition fails, then no write of the commit is applied', async () => {
    const kv = make();
    const a = key('a');
    const b = key('b');
    await kv.commit([], [{ op: 'put', key: a, data: 'x' }]);
    const result = await kv.commit(
      [
        { key: b, version: 0 },
        { key: a, version: 0 },
      ],
      [
        { op: 'put', key: b, data: 'should-not-exist' },
        { op: 'zadd', key: key('z'), score: 1, member: 'm' },
      ],
    );
    expect(result).toEqual({ ok: false, conflict: a });
    expect(await kv.get(b)).toBeUndefined();
  });

  it('when a later write of a commit meets a key of another kind, then the commit fails and none of its writes is applied', async () => {
    const kv = make();
    const [rec, queue, record, zset] = [key('aon-rec'), key('aon-queue'), key('aon-record'), key('aon-zset')];
    await kv.commit([], [{ op: 'put', key: record, data: 'a record' }]);
    await kv.commit([], [{ op: 'zadd', key: zset, score: 1, member: 'm' }]);
    const wrong: Write[] = [
      { op: 'zadd', key: record, score: 2, member: 'm' },
      { op: 'zrem', key: record, member: 'm' },
      { op: 'put', key: zset, data: 'x' },
      { op: 'hincr', key: zset, fields: ['f'], by: 1 },
    ];
    for (const w of wrong) {
      const commit = kv.commit(
        [{ key: rec, version: 0 }],
        [{ op: 'put', key: rec, data: 'written first' }, { op: 'zadd', key: queue, score: 1, member: 'queued' }, w],
      );
      await expect(commit, w.op).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(await kv.get(rec), w.op).toBeUndefined();
      expect(await kv.count(queue), w.op).toBe(0);
    }
    expect(await kv.get(record)).toEqual({ version: 1, data: 'a record' });
    expect(await kv.range(zset, -Infinity, Infinity, 10)).toEqual([{ member: 'm', score: 1 }]);
  });

  it('when a later write of a commit carries a number the store cannot take, then the commit fails and none of its writes is applied', async () => {
    const kv = make();
    const [rec, counters, other] = [key('aon-num-rec'), key('aon-num-counters'), key('aon-num-other')];
    const bad: Write[] = [
      { op: 'zadd', key: key('aon-num-z'), score: Number.NaN, member: 'm' },
      { op: 'zadd', key: key('aon-num-z'), score: Infinity, member: 'm' },
      { op: 'put', key: other, data: 'x', ttlMs: 1.5 },
      { op: 'hincr', key: key('aon-num-h'), fields: ['f'], by: 0.5 },
    ];
    for (const w of bad) {
      const commit = kv.commit(
        [{ key: rec, version: 0 }],
        [{ op: 'put', key: rec, data: 'written first' }, { op: 'hincr', key: counters, fields: ['tried'], by: 1 }, w],
      );
      await expect(commit, JSON.stringify(w)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(await kv.get(rec)).toBeUndefined();
      expect(await kv.counters(counters)).toEqual({});
      expect(await kv.get(other)).toBeUndefined();
    }
  });

  it('when counters are tallied with amounts of their own, then they add up, and a tally on a key of another kind or with a fraction fails the whole commit', async () => {
    const kv = make();
    const [day, rec, zset] = [key('tally-day'), key('tally-rec'), key('tally-z')];
    const ttlMs = 86_400_000;
    await kv.commit([], [{ op: 'tally', key: day, fields: ['a|USD|payments', 'a|USD|volume'], by: [1, 1050], ttlMs }]);
    await kv.commit([], [{ op: 'tally', key: day, fields: ['a|USD|volume', 'a|JPY|payments'], by: [-50, 2], ttlMs }]);
    expect(await kv.counters(day)).toEqual({ 'a|USD|payments': 1, 'a|USD|volume': 1000, 'a|JPY|payments': 2 });
    await kv.commit([], [{ op: 'zadd', key: zset, score: 1, member: 'm' }]);
    for (const w of [
      { op: 'tally', key: zset, fields: ['f'], by: [1], ttlMs },
      { op: 'tally', key: day, fields: ['a|USD|volume'], by: [0.5], ttlMs },
    ] as const) {
      const commit = kv.commit([{ key: rec, version: 0 }], [{ op: 'put', key: rec, data: 'written first' }, w]);
      await expect(commit, JSON.stringify(w)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(await kv.get(rec)).toBeUndefined();
    }
    expect(await kv.counters(day)).toEqual({ 'a|USD|payments': 1, 'a|USD|volume': 1000, 'a|JPY|payments': 2 });
  });

  it('when a payment with its written_by mark is committed with counters held by a key of another kind, then the commit fails and the payment is not written', async () => {
    const kv = make();
    const store = new KvGatewayStore(kv);
    const account = `aon-acc${++n}`;
    // the account's counters key holds a sorted set: the commit's counter write cannot be applied
    await kv.commit([], [{ op: 'zadd', key: keys.approvals('contract', account), score: 1, member: 'm' }]);
    const p: Payment = { ...payment(`aon-t${n}`, `aon-ord-${n}`), account_id: account, written_by: 'claim-1:create' };
    const commit = store.commit({
      merchantId: 'contract',
      payments: [{ next: p, expected: 0 }],
      due: [{ queue: 'pending_resolve', member: p.transaction_id, at: 5 }],
      counters: [{ accountId: account, fields: ['card:tried'] }],
    });
    await expect(commit).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    // nothing reads back as applied: no payment (so no mark), no order index, no recovery entry
    expect(await store.getPayment('contract', p.transaction_id)).toBeUndefined();
    expect(await store.findPaymentByOrder('contract', account, p.order_no)).toBeUndefined();
    expect(await store.recentPayments('contract', account, -Infinity, Infinity, 10)).toEqual([]);
    expect(await store.due('contract', 'pending_resolve', Infinity, 100)).not.toContainEqual(
      expect.objectContaining({ member: p.transaction_id }),
    );
  });

  it('when a record is deleted, then it reads as absent', async () => {
    const kv = make();
    const k = key('del');
    await kv.commit([], [{ op: 'put', key: k, data: 'x' }]);
    await kv.commit([{ key: k, version: 1 }], [{ op: 'del', key: k }]);
    expect(await kv.get(k)).toBeUndefined();
    expect(await kv.getMany([k, key('none')])).toEqual([undefined, undefined]);
  });

  it('when members are scored, then range returns them in order within bounds and limit', async () => {
    const kv = make();
    const z = key('z');
    await kv.commit(
      [],
      [5, 1, 3, 9].map((s) => ({ op: 'zadd' as const, key: z, score: s, member: `m${s}` })),
    );
    expect((await kv.range(z, -Infinity, 5, 10)).map((m) => m.member)).toEqual(['m1', 'm3', 'm5']);
    expect(await kv.range(z, 2, Infinity, 2)).toEqual([
      { member: 'm3', score: 3 },
      { member: 'm5', score: 5 },
    ]);
    expect((await kv.range(z, -Infinity, Infinity, 2, true)).map((m) => m.member)).toEqual(['m9', 'm5']);
    await kv.commit([], [{ op: 'zrem', key: z, member: 'm3' }]);
    expect((await kv.range(z, -Infinity, Infinity, 10)).map((m) => m.member)).toEqual(['m1', 'm5', 'm9']);
  });

  it('when a record has a time to live, then it is gone after it', async () => {
    const kv = make();
    const k = key('ttl');
    await kv.commit([], [{ op: 'put', key: k, data: 'x', ttlMs: 60 }]);
    expect((await kv.get(k))?.data).toBe('x');
    await sleep(150);
    expect(await kv.get(k)).toBeUndefined();
  });

  it('when a record with a time to live is put again without one, then it stays', async () => {
    const kv = make();
    const k = key('ttl-then-none');
    await kv.commit([], [{ op: 'put', key: k, data: 'x', ttlMs: 60 }]);
    await kv.commit([], [{ op: 'put', key: k, data: 'y' }]);
    await sleep(150);
    expect(await kv.get(k)).toEqual({ version: 2, data: 'y' });
  });

  it('when a write-once record is put twice, then both calls answer the first data', async () => {
    const kv = make();
    const k = key('once');
    expect(await kv.getOnce(k)).toBeUndefined();
    expect(await kv.putOnce(k, 'first')).toBe('first');
    expect(await kv.putOnce(k, 'second')).toBe('first');
    expect(await kv.getOnce(k)).toBe('first');
    // racing writers: every one of them is answered the same, winning, data
    const k2 = key('once-race');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => kv.putOnce(k2, `w${i}`)));
    expect(new Set(answers).size).toBe(1);
    expect(await kv.getOnce(k2)).toBe(answers[0]);
  });

  it('when a commit makes a write-once record, then it is written with the commit, and one already there fails the whole commit', async () => {
    const kv = make();
    const rec = key('once-commit');
    const a = key('once-commit-a');
    const q = key('once-commit-q');
    const made: Write[] = [
      { op: 'put', key: a, data: 'outcome' },
      { op: 'once', key: rec, data: 'approved' },
      { op: 'zadd', key: q, score: 1, member: 'm' },
    ];
    expect(await kv.commit([{ key: a, version: 0 }], made)).toEqual({ ok: true });
    expect(await kv.getOnce(rec)).toBe('approved');
    expect(await kv.get(a)).toEqual({ version: 1, data: 'outcome' });
    // a second commit making the same record: nothing of it is written, the record keeps the first data
    const again: Write[] = [
      { op: 'put', key: a, data: 'other outcome' },
      { op: 'zadd', key: q, score: 2, member: 'm2' },
      { op: 'once', key: rec, data: 'declined' },
    ];
    expect(await kv.commit([{ key: a, version: 1 }], again)).toEqual({ ok: false, conflict: rec });
    expect(await kv.getOnce(rec)).toBe('approved');
    expect(await kv.get(a)).toEqual({ version: 1, data: 'outcome' });
    expect(await kv.count(q)).toBe(1);
    // a record putOnce made counts the same
    const first = key('once-commit-first');
    await kv.putOnce(first, 'kept');
    expect(await kv.commit([], [{ op: 'once', key: first, data: 'late' }])).toEqual({ ok: false, conflict: first });
    expect(await kv.getOnce(first)).toBe('kept');
    // a key of another kind is refused, nothing written
    const other = key('once-commit-zset');
    await kv.commit([], [{ op: 'zadd', key: other, score: 1, member: 'x' }]);
    const b = key('once-commit-b');
    await expect(
      kv.commit(
        [],
        [
          { op: 'put', key: b, data: 'x' },
          { op: 'once', key: other, data: 'y' },
        ],
      ),
    ).rejects.toThrow();
    expect(await kv.get(b)).toBeUndefined();
  });

  it('when a window counter is counted, then it counts up', async () => {
    const kv = make();
    const k = key('win');
    expect(await kv.countInWindow(k, 10_000)).toBe(1);
    expect(await kv.countInWindow(k, 10_000)).toBe(2);
  });

  it('when a sorted set gains and loses members, then count follows it (0 for none)', async () => {
    const kv = make();
    const k = key('zcount');
    expect(await kv.count(k)).toBe(0);
    await kv.commit(
      [],
      [
        { op: 'zadd', key: k, score: 1, member: 'a' },
        { op: 'zadd', key: k, score: 2, member: 'b' },
        { op: 'zadd', key: k, score: 3, member: 'a' },
      ],
    );
    expect(await kv.count(k)).toBe(2);
    await kv.commit([], [{ op: 'zrem', key: k, member: 'a' }]);
    expect(await kv.count(k)).toBe(1);
  });

  it('when counters are incremented, then each field adds up and reads back as numbers', async () => {
    const kv = make();
    const k = key('counters');
    expect(await kv.counters(k)).toEqual({});
    await kv.commit([], [{ op: 'hincr', key: k, fields: ['card:tried', 'card:approved'], by: 1 }]);
    await kv.commit([], [{ op: 'hincr', key: k, fields: ['card:tried'], by: 1 }]);
    await kv.commit([], [{ op: 'hincr', key: k, fields: ['card|VISA:tried'], by: 5 }]);
    expect(await kv.counters(k)).toEqual({ 'card:tried': 2, 'card:approved': 1, 'card|VISA:tried': 5 });
  });

  it('when a commit carries counters, then they add up only when its conditions hold, with its other writes', async () => {
    const kv = make();
    const k = key('commit-counters');
    const r = key('commit-counters-record');
    const z = key('commit-counters-after');
    const h = { op: 'hincr', key: k, fields: ['card:tried', 'card:approved'], by: 1 } as const;
    expect(await kv.commit([{ key: r, version: 0 }], [{ op: 'put', key: r, data: 'x' }, h])).toEqual({ ok: true });
    // the same commit again: its condition fails, so neither the record nor the counters change
    expect((await kv.commit([{ key: r, version: 0 }], [{ op: 'put', key: r, data: 'y' }, h])).ok).toBe(false);
    await kv.commit(
      [],
      [
        { op: 'hincr', key: k, fields: ['card:tried'], by: 2 },
        { op: 'zadd', key: z, score: 1, member: 'm' },
      ],
    );
    expect(await kv.counters(k)).toEqual({ 'card:tried': 3, 'card:approved': 1 });
    expect(await kv.get(r)).toEqual({ version: 1, data: 'x' });
    expect(await kv.count(z)).toBe(1);
  });

  it('when 100 writers race with compare-and-set and retry, then no update is lost', async () => {
    const kv = make();
    const k = key('race');
    await kv.commit([], [{ op: 'put', key: k, data: '0' }]);
    const increment = async () => {
      for (;;) {
        const cur = (await kv.get(k))!;
        const res = await kv.commit([{ key: k, version: cur.version }], [{ op: 'put', key: k, data: String(Number(cur.data) + 1) }]);
        if (res.ok) return;
      }
    };
    await Promise.all(Array.from({ length: 100 }, increment));
    expect((await kv.get(k))!.data).toBe('100');
  });

  it('when two payments claim one order_no, then only the first is created', async () => {
    const store = new KvGatewayStore(make());
    const order = `ord-${++n}`;
    expect(await store.commit({ merchantId: 'contract', payments: [{ next: payment(`t${n}a`, order), expected: 0 }] })).toBe(true);
    expect(await store.commit({ merchantId: 'contract', payments: [{ next: payment(`t${n}b`, order), expected: 0 }] })).toBe(false);
    const found = await store.findPaymentByOrder('contract', 'acc', order);
    expect(found?.transaction_id).toBe(`t${n}a`);
    expect(found?.version).toBe(1);
    expect(await store.getPayment('contract', `t${n}b`)).toBeUndefined();
  });

  it('when a commit requires orders unused, then it is refused while any listed form has a payment or a checkout session, and writes nothing', async () => {
    const store = new KvGatewayStore(make());
    const [paid, opened, fresh] = [`u${++n}-paid`, `u${n}-open`, `u${n}-fresh`];
    expect(await store.commit({ merchantId: 'contract', payments: [{ next: payment(`t${n}p`, paid), expected: 0 }] })).toBe(true);
    const index = (orderNo: string, sessionId: string) => ({ accountId: 'acc', orderNo, sessionId, expected: 0, ttlMs: 60_000 });
    expect(await store.commit({ merchantId: 'contract', checkoutOrders: [index(opened, 's-open')] })).toBe(true);
    const claim = (orderNo: string, forms: string[]) =>
      store.commit({
        merchantId: 'contract',
        checkoutOrders: [index(orderNo, `s-${orderNo}`)],
        unusedOrders: forms.map((form) => ({ accountId: 'acc', orderNo: form })),
      });
    // another form of the order has a payment, or a session
    expect(await claim(`${fresh}-a`, [`${fresh}-a`, paid])).toBe(false);
    expect(await claim(`${fresh}-b`, [`${fresh}-b`, opened])).toBe(false);
    expect(await store.checkoutOfOrder('contract', 'acc', `${fresh}-a`)).toBeUndefined();
    expect(await store.checkoutOfOrder('contract', 'acc', `${fresh}-b`)).toBeUndefined();
    // the same order numbers under another account are other orders
    expect(
      await store.commit({ merchantId: 'contract', unusedOrders: [paid, opened].map((orderNo) => ({ accountId: 'other', orderNo })) }),
    ).toBe(true);
    expect(await claim(fresh, [fresh])).toBe(true);
    expect((await store.checkoutOfOrder('contract', 'acc', fresh))?.sessionId).toBe(`s-${fresh}`);
    // now used itself
    expect(await store.commit({ merchantId: 'contract', unusedOrders: [{ accountId: 'acc', orderNo: fresh }] })).toBe(false);
  });

  it('when a payment is updated with a stale version, then the update is refused', async () => {
    const store = new KvGatewayStore(make());
    const p = payment(`t${++n}`, `ord-${n}`);
    await store.commit({ merchantId: 'contract', payments: [{ next: p, expected: 0 }] });
    expect(await store.commit({ merchantId: 'contract', payments: [{ next: { ...p, status: '3000' }, expected: 1 }] })).toBe(true);
    expect(await store.commit({ merchantId: 'contract', payments: [{ next: { ...p, status: '4100' }, expected: 1 }] })).toBe(false);
    expect((await store.getPayment('contract', p.transaction_id))?.status).toBe('3000');
  });

  it('when payments are created, then recentPayments lists the payments of an account newest first within bounds; updates and refused claims add nothing', async () => {
    const store = new KvGatewayStore(make());
    const account = `acc${++n}`;
    const made = [10, 20, 30].map((at) => ({ ...payment(`r${n}-${at}`, `ord-${n}-${at}`), account_id: account, created_at: at }));
    for (const p of made) expect(await store.commit({ merchantId: 'contract', payments: [{ next: p, expected: 0 }] })).toBe(true);
    await store.commit({ merchantId: 'contract', payments: [{ next: { ...made[0]!, status: '3000', updated_at: 99 }, expected: 1 }] });
    const taken = { ...payment(`r${n}-dup`, made[1]!.order_no), account_id: account, created_at: 40 };
    expect(await store.commit({ merchantId: 'contract', payments: [{ next: taken, expected: 0 }] })).toBe(false);
    expect(await store.recentPayments('contract', account, -Infinity, Infinity, 10)).toEqual(made.map((p) => p.transaction_id).reverse());
    expect(await store.recentPayments('contract', account, 15, 30, 10)).toEqual([made[2]!.transaction_id, made[1]!.transaction_id]);
    expect(await store.recentPayments('contract', account, -Infinity, Infinity, 1)).toEqual([made[2]!.transaction_id]);
    expect(await store.recentPayments('contract', 'other', -Infinity, Infinity, 10)).toEqual([]);
  });
});

describe.each([
  ['memory', () => new MemoryKv() as KvStore],
  ['redis', () => redisKv as KvStore],
])("the sandbox acquirer's ledger of one merchant (%s)", (_name, make) => {
  it("when a reference is recorded, then its record sits under the merchant's hash tag, with the payments", async () => {
    const kv = make();
    const store = new KvGatewayStore(kv);
    const ref = `ledger-${++n}`;
    expect(await store.ledgerOf('contract').ledgerRecord(ref, 'first')).toBe('first');
    expect(await store.ledgerOf('contract').ledgerRecord(ref, 'second')).toBe('first');
    expect(await store.ledgerOf('contract').ledgerLookup(ref)).toBe('first');
    expect(await kv.getOnce(`acq:{contract}:${ref}`)).toBe('first');
    expect(keys.acquirerOf('contract', ref)).toBe(`acq:{contract}:${ref}`);
    // another merchant's ledger is another acquirer account: the reference is not known there
    expect(await store.ledgerOf('other').ledgerLookup(ref)).toBeUndefined();
  });

  it('when a reference was recorded under its former key (the reference alone), then the record answers as the first and nothing new is written', async () => {
    const kv = make();
    const store = new KvGatewayStore(kv);
    const ref = `ledger-former-${++n}`;
    expect(await store.ledgerRecord(ref, 'recorded before')).toBe('recorded before');
    expect(await store.ledgerOf('contract').ledgerLookup(ref)).toBe('recorded before');
    expect(await store.ledgerOf('contract').ledgerRecord(ref, 'asked again')).toBe('recorded before');
    expect(await kv.getOnce(`acq:{contract}:${ref}`)).toBeUndefined();
  });
});

describe('the acquirer ledger on Redis, across the change of its record format', () => {
  it('when a reference was recorded as a {v, d} record by an earlier version, then putOnce and getOnce answer that record', async () => {
    const raw = redis.client();
    const k = `contract-ledger-earlier-${Date.now()}`;
    await raw.hset(k, 'v', '1', 'd', '{"op":"authorise"}');
    expect(await redisKv.getOnce(k)).toBe('{"op":"authorise"}');
    expect(await redisKv.putOnce(k, '{"op":"other"}')).toBe('{"op":"authorise"}');
    expect(await raw.hget(k, 'd')).toBe('{"op":"authorise"}');
  });
});

describe.each([
  ['memory', () => new MemoryKv() as KvStore],
  ['redis', () => redisKv as KvStore],
])('the outbox queue and its index of pending notifications (%s)', (_name, make) => {
  const notification = (merchantId: string, id: string, at: number): OutboxRecord => ({
    version: 0,
    notify_id: id,
    merchant_id: merchantId,
    account_id: 'acc',
    notify_type: 'payment',
    notify_url: 'https://shop.example/notify',
    fields: {},
    status: 'pending',
    attempts: 0,
    created_at: at,
    next_attempt_at: at,
  });

  it('when notifications are written, claimed and delivered, then the index holds exactly the pending ones by due time', async () => {
    const store = new KvGatewayStore(make());
    const m = `outbox-${++n}`;
    const a = notification(m, 'a', 10);
    const b = notification(m, 'b', 20);
    expect(
      await store.commit({
        merchantId: m,
        outbox: [
          { next: a, expected: 0 },
          { next: b, expected: 0 },
        ],
      }),
    ).toBe(true);
    expect(await store.overdueOutbox(m, -Infinity, 100, 10)).toEqual([
      { notifyId: 'a', at: 10 },
      { notifyId: 'b', at: 20 },
    ]);
    expect(await store.overdueOutbox(m, 15, 100, 10)).toEqual([{ notifyId: 'b', at: 20 }]);
    expect(await store.overdueOutbox(m, -Infinity, 15, 10)).toEqual([{ notifyId: 'a', at: 10 }]);
    // claimed: due at the end of its lease; delivered: out of the index and of the queue
    expect(await store.commit({ merchantId: m, outbox: [{ next: { ...a, lease_until: 40 }, expected: 1 }] })).toBe(true);
    expect(await store.overdueOutbox(m, -Infinity, 100, 10)).toEqual([
      { notifyId: 'b', at: 20 },
      { notifyId: 'a', at: 40 },
    ]);
    expect(await store.commit({ merchantId: m, outbox: [{ next: { ...a, status: 'delivered' }, expected: 2 }] })).toBe(true);
    expect(await store.overdueOutbox(m, -Infinity, 100, 10)).toEqual([{ notifyId: 'b', at: 20 }]);
    expect((await store.due(m, 'outbox', 100, 10)).map((d) => d.member)).toEqual(['b']);
  });

  it('when a queue entry is removed on condition of the version read, then a notification that moved since keeps it, and the index is left as the records wrote it', async () => {
    const store = new KvGatewayStore(make());
    const m = `outbox-${++n}`;
    const drop = (version: number) => ({
      merchantId: m,
      outboxUnchanged: [{ notifyId: 'b', version }],
      due: [{ queue: 'outbox' as const, member: 'b', at: null }],
    });
    expect(await store.commit({ merchantId: m, outbox: [{ next: notification(m, 'b', 20), expected: 0 }] })).toBe(true);
    expect(await store.commit(drop(0))).toBe(false);
    expect((await store.due(m, 'outbox', 100, 10)).map((d) => d.member)).toEqual(['b']);
    expect(await store.commit(drop(1))).toBe(true);
    expect(await store.due(m, 'outbox', 100, 10)).toEqual([]);
    expect(await store.overdueOutbox(m, -Infinity, 100, 10)).toEqual([{ notifyId: 'b', at: 20 }]);
    // a notification that does not exist is at version 0
    expect(await store.commit({ ...drop(0), outboxUnchanged: [{ notifyId: 'gone', version: 0 }] })).toBe(true);
  });
});

describe.each([
  ['memory', () => new MemoryKv() as KvStore],
  ['redis', () => redisKv as KvStore],
])('reconciliation records (%s)', (_name, make) => {
  const discrepancy = (m: string, txn: string, kind: DiscrepancyRecord['kind']): DiscrepancyRecord => ({
    version: 0,
    merchant_id: m,
    account_id: 'acc',
    transaction_id: txn,
    kind,
    connector: 'sandbox',
    found_at: 10,
    currency: 'USD',
    acquirer_amount: 4000,
    gateway_amount: 2000,
    references: [`${txn}-02`],
  });

  it("when a payment's discrepancy is created twice, then the second is refused and one per kind is kept", async () => {
    const store = new KvGatewayStore(make());
    const m = `reconcile-${++n}`;
    const first = discrepancy(m, 'T1', 'refunds');
    expect(await store.commit({ merchantId: m, discrepancies: [{ next: first, expected: 0 }] })).toBe(true);
    expect(await store.commit({ merchantId: m, discrepancies: [{ next: { ...first, found_at: 20 }, expected: 0 }] })).toBe(false);
    expect(await store.commit({ merchantId: m, discrepancies: [{ next: discrepancy(m, 'T1', 'capture'), expected: 0 }] })).toBe(true);
    const kept = await store.discrepanciesOf(m, 'T1');
    expect(kept.map((d) => [d.kind, d.found_at, d.version])).toEqual([
      ['capture', 10, 1],
      ['refunds', 10, 1],
    ]);
    expect(await store.discrepanciesOf(m, 'T2')).toEqual([]);
  });

  it("when an account's pass is written with the version read, then a stale writer is refused", async () => {
    const store = new KvGatewayStore(make());
    const m = `reconcile-${++n}`;
    const pass: ReconcilePass = {
      version: 0,
      merchant_id: m,
      account_id: 'acc',
      started_at: 100,
      window_from: 0,
      phase: 'payments',
      compared: 0,
      caught_up: 0,
      discrepancies: 0,
    };
    expect(await store.commit({ merchantId: m, reconcilePasses: [{ next: pass, expected: 0 }] })).toBe(true);
    expect(await store.commit({ merchantId: m, reconcilePasses: [{ next: { ...pass, lease_until: 200 }, expected: 1 }] })).toBe(true);
    expect(await store.commit({ merchantId: m, reconcilePasses: [{ next: { ...pass, lease_until: 300 }, expected: 1 }] })).toBe(false);
    expect(await store.getReconcilePasses(m, ['acc', 'other'])).toEqual([{ ...pass, version: 2, lease_until: 200 }, undefined]);
  });
});
