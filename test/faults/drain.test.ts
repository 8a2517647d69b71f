import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../support/redis.js';
import { authoriseLoad, killGateways, nonJsonLines, sleep, startOnRedis } from './support/gateway-process.js';

/**
 * A SIGTERM under kept-alive load (docs/deployment.md, "Stopping"): /readyz turns 503 at once while the
 * process keeps serving for SHUTDOWN_DRAIN_MS, every answer meanwhile closes its connection, and only then the
 * listener closes. Clients that keep sending until the load balancer has seen the 503 see no reset.
 */
const servers: RedisServer[] = [];
afterAll(async () => {
  killGateways();
  await Promise.all(servers.map((s) => s.stop()));
});

const DRAIN_MS = 2_000;

describe('a gateway stopped with SIGTERM under kept-alive load', () => {
  it('when SIGTERM comes, then /readyz answers 503 for the drain period while requests are still served, none is reset, and the process exits 0', async () => {
    const redis = await startRedis('drain');
    servers.push(redis);
    const gw = await startOnRedis('drain', redis, { SHUTDOWN_DRAIN_MS: String(DRAIN_MS), SHUTDOWN_GRACE_MS: '5000' });
    // fetch keeps its connections alive: 8 clients, each on its own kept-alive connection
    const load = authoriseLoad(gw.base, 8);
    while (load.answers.length < 40) await sleep(20);

    const signalled = Date.now();
    gw.child.kill('SIGTERM');
    const exited = once(gw.child, 'exit');
    // the load balancer's health check, every 50 ms, until the listener is gone
    const probes: { at: number; status: number }[] = [];
    for (;;) {
      const status = await fetch(`${gw.base}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      probes.push({ at: Date.now() - signalled, status });
      if (status === 0) break;
      // a load balancer that saw the 503 stops sending new requests here a second later (its interval times
      // its threshold); the clients stop with it
      if (probes.filter((p) => p.status === 503).length === 1) setTimeout(() => void load.stop(), 1_000);
      await sleep(50);
    }
    await load.stop();
    const [code] = await exited;
    const stoppedAfter = Date.now() - signalled;

    const afterSignal = load.answers.filter((a) => a.at >= signalled);
    console.info(
      `drain: ${load.answers.length} answers, ${afterSignal.length} sent after SIGTERM; /readyz 503 from ${probes.find((p) => p.status === 503)?.at} ms, ` +
        `listener closed at ${probes.at(-1)!.at} ms; exit after ${stoppedAfter} ms`,
    );
    expect(code).toBe(0);
    // nothing reset or refused: every request answered, and answered 200
    expect(load.answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(afterSignal.length).toBeGreaterThan(0);
    // not ready as soon as the signal is handled (a probe already in hand may still answer 200), and answering
    // 503 for the whole drain period before the listener closed
    const first = probes.findIndex((p) => p.status === 503);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(probes[first]!.at).toBeLessThan(1_000);
    const answered = probes.slice(first).filter((p) => p.status !== 0);
    expect(answered.every((p) => p.status === 503)).toBe(true);
    expect(answered.at(-1)!.at).toBeGreaterThanOrEqual(DRAIN_MS - 200);
    expect(stoppedAfter).toBeLessThan(DRAIN_MS + 5_000);
    expect(gw.output()).toContain('drain period over');
    expect(nonJsonLines(gw.output())).toEqual([]);
  }, 60_000);
});
