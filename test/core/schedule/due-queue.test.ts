import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { dueQueueJob, ITEM_RETRY_MS } from '../../../src/core/schedule/due-queue.js';
import type { Logger } from '../../../src/core/ports/deps.js';
import type { GatewayStore } from '../../../src/core/ports/store.js';
import { KvGatewayStore } from '../../../src/store/gateway-store.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';

/** A logger that keeps what it was told, so tests can see a failure was reported. */
function recordingLog(): Logger & { lines: { level: string; obj: object; msg?: string }[] } {
  const lines: { level: string; obj: object; msg?: string }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, obj, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}

async function queue(store: GatewayStore, merchantId: string, members: string[], at: number): Promise<void> {
  await store.commit({ merchantId, due: members.map((member, i) => ({ queue: 'auth_expiry' as const, member, at: at + i })) });
}

describe('a due-queue job (issue 11, item 6: jobs isolate items)', () => {
  for (const concurrent of [false, true]) {
    it(`when one item throws (${concurrent ? 'concurrent' : 'one after another'}), then it is logged, counted and put back a short while later, and the others are handled`, async () => {
      const clock = new ManualClock();
      const store = new KvGatewayStore(new MemoryKv());
      const log = recordingLog();
      const now = clock.now();
      await queue(store, 'm1', ['bad', 'a1', 'a2'], now - 100);
      await queue(store, 'm2', ['b1'], now - 100);
      const seen: string[] = [];
      const job = dueQueueJob(
        { store, clock, log, merchants: { merchantIds: () => ['m1', 'm2'] } },
        {
          name: 'test-job',
          intervalMs: 1000,
          queue: 'auth_expiry',
          batch: 10,
          concurrent,
          async handle(m, member) {
            if (member === 'bad') throw new Error('no connector acme for this account');
            seen.push(`${m}/${member}`);
            await store.commit({ merchantId: m, due: [{ queue: 'auth_expiry', member, at: null }] });
            return true;
          },
        },
      );

      expect(await job.runOnce()).toBe(3);
      expect(seen.sort()).toEqual(['m1/a1', 'm1/a2', 'm2/b1']);
      expect(job.failedItems).toBe(1);
      expect(await store.due('m1', 'auth_expiry', now, 10)).toEqual([]);
      expect(await store.due('m1', 'auth_expiry', now + ITEM_RETRY_MS, 10)).toEqual([{ member: 'bad', at: now + ITEM_RETRY_MS }]);
      const reported = log.lines.find((l) => l.level === 'error');
      expect(reported?.obj).toMatchObject({ job: 'test-job', merchant_id: 'm1', member: 'bad', err: { message: /no connector acme/ } });

      // not dropped: once its back-off has passed it is tried again (and fails again, counted again)
      clock.advance(ITEM_RETRY_MS);
      expect(await job.runOnce()).toBe(0);
      expect(job.failedItems).toBe(2);
    });
  }

  it("when one merchant's queue cannot be read, then the other merchants' items are still handled, and the run fails (a job error, not ok)", async () => {
    const clock = new ManualClock();
    const inner = new KvGatewayStore(new MemoryKv());
    const store: Pick<GatewayStore, 'due' | 'commit'> = {
      commit: (c) => inner.commit(c),
      due: (m, q, upTo, limit) => (m === 'm1' ? Promise.reject(new Error('store timeout')) : inner.due(m, q, upTo, limit)),
    };
    await queue(inner, 'm2', ['b1'], clock.now() - 1);
    const log = recordingLog();
    const handled: string[] = [];
    const job = dueQueueJob(
      { store, clock, log, merchants: { merchantIds: () => ['m1', 'm2'] } },
      {
        name: 'test-job',
        intervalMs: 1000,
        queue: 'auth_expiry',
        batch: 10,
        handle: async (m, member) => {
          handled.push(`${m}/${member}`);
          return true;
        },
      },
    );
    await expect(job.runOnce()).rejects.toThrow('store timeout');
    expect(handled).toEqual(['m2/b1']);
    expect(log.lines.find((l) => l.level === 'error')?.obj).toMatchObject({ merchant_id: 'm1', err: { message: 'store timeout' } });
  });
});
