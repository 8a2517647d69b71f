import { Router } from 'express';
import type { GatewayStore } from '../../core/ports/store.js';

/** /healthz: the process runs. /readyz: the store answers, so the instance can take traffic. */
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
    try {
      await Promise.race([store.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 1000).unref())]);
      res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'store unavailable' });
    }
  });
  return router;
}
