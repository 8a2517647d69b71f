import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { authoriseBody } from './bodies.js';
import type { Gateway } from './lib.js';

interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
}

/** Asks the gateway (started with bench/mem-probe.mjs) for its memory use after a full collection. */
function memoryOf(child: ChildProcess): Promise<Memory> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no memory answer from the gateway')), 10_000);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve(m as Memory);
    });
    child.send('memory');
  });
}

async function redisUsedMemory(gw: Gateway): Promise<number> {
  const info = await gw.redis.client().info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1]);
}

async function authorise(gw: Gateway, count: number): Promise<{ non2xx: number; errors: number; total: number }> {
  const r = await autocannon({
    url: `${gw.url}/v1/authorise`,
    connections: 50,
    amount: count,
    requests: [
      { method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: authoriseBody() }) },
    ],
  });
  return { non2xx: r.non2xx, errors: r.errors, total: r.requests.total };
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
const pct = (after: number, before: number) => `${(((after - before) / before) * 100).toFixed(1)} %`;

/**
 * The soak: `count` approved authorisations after a warm-up, with the gateway's RSS and heap (after a full
 * collection) before and after, and Redis's used_memory per payment. Bodies are made as they are sent, so
 * the bench's own memory stays small whatever the count.
 */
export async function soak(gw: Gateway, count: number): Promise<boolean> {
  await authorise(gw, Math.min(2000, count));
  const before = await memoryOf(gw.child);
  const redisBefore = await redisUsedMemory(gw);
  const started = Date.now();
  const r = await authorise(gw, count);
  const seconds = (Date.now() - started) / 1000;
  const after = await memoryOf(gw.child);
  const redisAfter = await redisUsedMemory(gw);
  console.log(`\nsoak: ${r.total} authorisations in ${seconds.toFixed(0)} s (non-2xx ${r.non2xx}, errors ${r.errors})`);
  console.log(`  gateway RSS        ${mb(before.rss)} -> ${mb(after.rss)}  (${pct(after.rss, before.rss)}; aim within 10 %)`);
  console.log(`  gateway heap used  ${mb(before.heapUsed)} -> ${mb(after.heapUsed)}  (${pct(after.heapUsed, before.heapUsed)})`);
  console.log(`  gateway heap total ${mb(before.heapTotal)} -> ${mb(after.heapTotal)}`);
  console.log(
    `  Redis used_memory  ${mb(redisBefore)} -> ${mb(redisAfter)}: ${((redisAfter - redisBefore) / Math.max(1, r.total)).toFixed(0)} bytes per payment`,
  );
  return r.non2xx === 0 && r.errors === 0;
}
