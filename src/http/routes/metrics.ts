import { Router } from 'express';
import { ipAllowed } from '../../core/merchants/ip-allow.js';
import { GatewayError } from '../../core/kernel/errors.js';
import type { PrometheusMetrics } from '../../metrics/prometheus.js';
import { clientAddress } from '../client-address.js';

/**
 * GET /metrics: the Prometheus text, for callers in METRICS_ALLOW only (default loopback); others get 403
 * and nothing else (the series name merchants' accounts' volumes).
 */
export function metricsRouter(metrics: PrometheusMetrics, allow: readonly string[]): Router {
  const router = Router();
  router.get('/metrics', async (req, res) => {
    if (!ipAllowed(clientAddress(req), allow))
      throw new GatewayError('IP_NOT_ALLOWED', 'the caller is not allowed to read the metrics (METRICS_ALLOW)');
    const { contentType, text } = await metrics.exposition();
    res.setHeader('Cache-Control', 'no-store');
    res.type(contentType).send(text);
  });
  return router;
}
