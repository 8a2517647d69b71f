import { Router } from 'express';
import type { GatewayStore } from '../../core/ports/store.js';

/**
 * /healthz: the process runs. /readyz: the instance can take traffic: it is not shutting down, and the store
 * answers and takes a write (a store out of memory answers reads but refuses every change).
 */
export function healthRouter(store: GatewayStore, isShuttingDown: () => boolean): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (isShuttingDown()) {
      res.status(503).json({ status: 'shutting down' });
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
