import type { Express, Request, Response } from 'express';
import type { PrometheusMetrics } from '../../metrics/prometheus.js';
import { appRoutes } from '../route-table.js';

/** Label of a request no route answered (unknown addresses): one label, so scanners cannot grow the series. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Counts every answer in gateway_http_requests_total and its duration in the histogram, labelled with the
 * route pattern (`/v1/3ds/:merchantId/:transactionId/:secret`), never the raw path: the series stay few, and no
 * secret or identifier in a path reaches the metrics. A request refused before its route ran (a body that
 * is not JSON, an Idempotency-Key conflict) is labelled by the app's route of that exact path.
 */
export function httpMetrics(app: Express, metrics: PrometheusMetrics): (req: Request, res: Response, seconds: number) => void {
  let staticPaths: Set<string> | undefined;
  const labelOf = (req: Request): string => {
    const route = req.route as { path?: unknown } | undefined;
    if (route && typeof route.path === 'string') return req.baseUrl + route.path;
    // built on first use: every router is mounted by then
    staticPaths ??= new Set(
      appRoutes(app)
        .map((r) => r.path)
        .filter((p) => !p.includes(':') && !p.includes('*')),
    );
    if (staticPaths.has(req.path)) return req.path;
    if (req.path.startsWith('/public/')) return '/public';
    return UNMATCHED_ROUTE;
  };
  // called by the request log's own 'finish' listener (app.ts): one listener and one clock read per request
  return (req: Request, res: Response, seconds: number): void => metrics.observeRequest(req.method, labelOf(req), res.statusCode, seconds);
}
