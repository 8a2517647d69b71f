import { Router } from 'express';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { GatewayStore } from '../../core/ports/store.js';

/**
 * An instance whose event loop lagged past this (the 99th percentile of its delay since the previous probe)
 * is not ready: it is overloaded, and every request it takes waits at least that long (docs/deployment.md).
 */
export const READY_MAX_LAG_MS = 500;

/**
 * /healthz: the process runs. /readyz: the instance can take traffic: it is not shutting down, and the store
 * answers and takes a write (a store out of memory answers reads but refuses every change), and its event loop
 * does not lag past READY_MAX_LAG_MS.
 */
export function healthRouter(store: GatewayStore, isShuttingDown: () => boolean): Router {
  const router = Router();
  // measured from the first probe on (an instance never probed keeps no histogram), read and reset by each
  let lag: IntervalHistogram | undefined;
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (isShuttingDown()) {
      res.status(503).json({ status: 'shutting down' });
      return;
    }
    if (!lag) {
      lag = monitorEventLoopDelay({ resolution: 20 });
      lag.enable();
    }
    const lagMs = lag.count > 0 ? lag.percentile(99) / 1e6 : 0;
    lag.reset();
    if (lagMs > READY_MAX_LAG_MS) {
      res.status(503).json({ status: 'event loop lagging', lag_ms: Math.round(lagMs) });
      return;
    }
    // a store that does not answer within a second is not ready; the deadline goes with the answer (a probe a
    // second would otherwise keep a timer alive for each)
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), 1000).unref();
    });
    try {
      await Promise.race([store.ping(), deadline]);
      res.json({ status: 'ready' });
    } catch (err) {
      const refused = err instanceof Error && err.message.startsWith('the store refused');
      res.status(503).json({ status: refused ? 'store refuses writes' : 'store unavailable' });
    } finally {
      clearTimeout(timer);
    }
  });
  return router;
}
