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

/** How many checkpoints the soak takes (memory after each tenth of the payments). */
const CHECKPOINTS = 10;

/**
 * The soak: `count` approved authorisations after a warm-up of 2000, in ten equal parts, with the gateway's
 * RSS and heap (after a full collection) after the warm-up and after each part, and Redis's used_memory per
 * payment. A leak grows with every part; a process that is still sizing its heap and buffers grows in the
 * first parts and then stays. So the growth is given twice: from the warm-up, and from the end of the first
 * part (the steady state) to the end. Bodies are made as they are sent, so the bench's own memory stays small
 * whatever the count.
 */
export async function soak(gw: Gateway, count: number): Promise<boolean> {
  await authorise(gw, Math.min(2000, count));
  const before = await memoryOf(gw.child);
  const redisBefore = await redisUsedMemory(gw);
  const started = Date.now();
  const points: { done: number; memory: Memory }[] = [];
  const r = { non2xx: 0, errors: 0, total: 0 };
  for (let part = 1; part <= CHECKPOINTS; part++) {
    const n = Math.round((count * part) / CHECKPOINTS) - Math.round((count * (part - 1)) / CHECKPOINTS);
    const got = await authorise(gw, n);
    r.non2xx += got.non2xx;
    r.errors += got.errors;
    r.total += got.total;
    points.push({ done: r.total, memory: await memoryOf(gw.child) });
  }
  const seconds = (Date.now() - started) / 1000;
  const after = points[points.length - 1]!.memory;
  const steady = points[0]!.memory;
  const redisAfter = await redisUsedMemory(gw);
  console.log(`\nsoak: ${r.total} authorisations in ${seconds.toFixed(0)} s (non-2xx ${r.non2xx}, errors ${r.errors})`);
  console.log(`  gateway RSS after each tenth: ${points.map((p) => (p.memory.rss / 1024 / 1024).toFixed(0)).join(' ')} MB`);
  console.log(`  gateway heap used after each tenth: ${points.map((p) => (p.memory.heapUsed / 1024 / 1024).toFixed(1)).join(' ')} MB`);
  const highest = Math.max(...points.map((p) => p.memory.rss));
  console.log(
    `  gateway RSS        ${mb(before.rss)} -> ${mb(after.rss)}  (${pct(after.rss, before.rss)} from the warm-up; ` +
      `${pct(after.rss, steady.rss)} from the first tenth to the end; highest ${mb(highest)}, ${pct(highest, before.rss)}; aim within 10 %)`,
  );
  console.log(
    `  gateway heap used  ${mb(before.heapUsed)} -> ${mb(after.heapUsed)}  (${pct(after.heapUsed, before.heapUsed)}; ` +
      `${pct(after.heapUsed, steady.heapUsed)} from the first tenth)`,
  );
  console.log(`  gateway heap total ${mb(before.heapTotal)} -> ${mb(after.heapTotal)}`);
  console.log(
    `  Redis used_memory  ${mb(redisBefore)} -> ${mb(redisAfter)}: ${((redisAfter - redisBefore) / Math.max(1, r.total)).toFixed(0)} bytes per payment`,
  );
  return r.non2xx === 0 && r.errors === 0;
}
