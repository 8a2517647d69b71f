import express, { Router, type Express, type NextFunction, type Request, type Response } from 'express';
import ejs from 'ejs';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { CoreDeps } from './core/ports/deps.js';
import { maskField } from './http/schemas/free-text.js';
import { maskIdentifier } from './core/kernel/cards.js';
import { gatewayBody } from './http/middleware/body.js';
import { gatewayHelmetOptions, securityHeaders } from './http/middleware/security-headers.js';
import { chain } from './http/middleware/chain.js';
import { fixedPostRoutes, postDispatch, undispatched } from './http/post-dispatch.js';
import { appRoutes } from './http/route-table.js';
import { textSend } from './http/render/send-text.js';
import { errorHandler, loggedPath, notFound } from './http/middleware/error-handler.js';
import { healthRouter } from './http/routes/health.js';
import { authoriseRouter } from './http/routes/authorise.js';
import { operationsRouter } from './http/routes/operations.js';
import { retrievalRouter } from './http/routes/retrieval.js';
import { idempotency } from './http/middleware/idempotency.js';
import { strictSignature } from './http/middleware/request-signature.js';
import { authThrottle, countAuthFailures } from './http/middleware/auth-throttle.js';
import { subscriptionsRouter } from './http/routes/subscriptions.js';
import { notificationsRouter } from './http/routes/notifications.js';
import { payoutRouter } from './http/routes/payout.js';
import { checkoutRouter } from './http/routes/checkout.js';
import { hostedPagesRouter } from './http/routes/hosted-pages.js';
import { threedsRouter } from './http/routes/threeds.js';
import { exampleShopRouter } from './http/routes/example-shop.js';
import { PrometheusMetrics } from './metrics/prometheus.js';
import { httpMetrics } from './http/middleware/metrics.js';
import { metricsRouter } from './http/routes/metrics.js';
import { optimiseRouter } from './http/routes/optimise.js';
import { docsRouter } from './http/routes/docs.js';
import { frontDoorRouter } from './http/routes/front-door.js';
import { pageAssetsRouter } from './http/routes/page-assets.js';
import { operatorLogoAsset, type Logo } from './http/render/assets.js';
import { defaultOperatorName, type OperatorLogo } from './operator-branding.js';
import { portalRouter } from './http/routes/portal/index.js';
import { connectorWebhooksRouter } from './http/routes/connector-webhooks.js';
import { testClocksRouter } from './http/routes/test-clocks.js';
import { savedCardsRouter } from './http/routes/saved-cards.js';
import { disputesRouter } from './http/routes/disputes.js';
import { adminRouter } from './http/routes/admin.js';

/** EJS pages and the pages' own scripts and styles (next to src/ and dist/ alike). */
const VIEWS_DIR = fileURLToPath(new URL('../views', import.meta.url));
const PUBLIC_DIR = fileURLToPath(new URL('../public', import.meta.url));

export interface AppOptions {
  trustProxy?: string | boolean | number | undefined;
  isShuttingDown?: () => boolean;
  /** serves the merchant example shop under /examples (NODE_ENV=development only) */
  development?: boolean;
  /** METRICS_ALLOW: who may read /metrics (default loopback) */
  metricsAllow?: readonly string[];
  /** the store in use, named on the front door page */
  store?: 'redis' | 'memory';
  /** OPERATOR_NAME: who runs the gateway, named on the hosted pages' trust line */
  operatorName?: string;
  /** OPERATOR_LOGO_FILE as read at start: shown beside that name, served from the gateway's own origin */
  operatorLogo?: OperatorLogo | undefined;
}

/**
 * Tags every request with an id (echoed in X-Request-Id and in error bodies) and logs its outcome. The line
 * is made of scalars the gateway sets itself (no body, no header but the checked request id, card numbers in
 * it masked), so the core's logger writes it without the redaction walk, which cost a quarter of the line's
 * price (coreLogger, docs/operations.md); any text in it still has card numbers masked.
 */
function requestLog(deps: CoreDeps, isShuttingDown: () => boolean, observe?: (req: Request, res: Response, seconds: number) => void) {
  return (req: Request, res: Response, next: NextFunction): void => {
    // while draining (docs/deployment.md, "Stopping"), every answer closes its connection: the client's next
    // request opens a new one, which the load balancer, told by /readyz, sends elsewhere; no kept-alive
    // connection is then cut under a request when the listener closes
    if (isShuttingDown()) res.setHeader('Connection', 'close');
    const header = req.get('x-request-id');
    // a card number sent as the id is masked before it is echoed or logged (docs/security.md#card-data)
    const id = header && /^[\w.-]{1,64}$/.test(header) ? maskIdentifier(header) : randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ns = Number(process.hrtime.bigint() - started);
      observe?.(req, res, ns / 1e9);
      // one line per request; routers add what the call did (transaction id, status) in res.locals.outcome
      deps.log.info(
        {
          request_id: id,
          method: req.method,
          path: loggedPath(req.path),
          status: res.statusCode,
          ms: ns / 1e6,
          ...scalarsOf(res.locals.outcome),
        },
        'request',
      );
    });
    next();
  };
}

/**
 * A router of GET routes only, skipped by every POST: the API's calls then pass no route pattern of the
 * pages, docs, health and metrics (each one a regular expression tried on the path).
 */
function readOnly(...routers: Router[]) {
  const group = Router();
  for (const r of routers) group.use(r);
  const skip = (req: Request, res: Response, next: NextFunction): void => {
    if (req.method === 'POST') next();
    else group(req, res, next);
  };
  // the route table (metrics labels, the OpenAPI test) reads the routes through the router's stack
  return Object.assign(skip, { stack: group.stack });
}

/** What a router reported of its call (res.locals.outcome), kept to scalars, card numbers in text masked. */
function scalarsOf(outcome: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  if (!outcome || typeof outcome !== 'object') return out;
  for (const [k, v] of Object.entries(outcome)) {
    if (typeof v === 'string') out[k] = maskField(k, v);
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  return out;
}

/** Builds the Express app around the core; no listen here, so tests run it on port 0 with supertest. */
export function createApp(deps: CoreDeps, options: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.response.send = textSend(app.response.send);
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
  // the hosted pages' trust line names the operator (render/pages.ts), with its logo when it has one
  app.locals.operatorName = options.operatorName ?? defaultOperatorName(deps.baseUrl);
  app.locals.operatorLogo = options.operatorLogo ? operatorLogoAsset(options.operatorLogo) : undefined;
  app.set('views', VIEWS_DIR);
  app.set('view engine', 'ejs');
  // Express caches compiled views only when process.env.NODE_ENV is "production", but the gateway runs
  // as production whenever NODE_ENV is not "development" (config.ts): without this, `npm start` compiled
  // every page's template on every request
  app.set('view cache', !options.development);
  // EJS as Express's engine, with its options set here (Express passes none): out of development the
  // compiled templates skip the line bookkeeping that only error messages use (about a fifth of a page's
  // render time)
  app.engine('ejs', (file: string, data: object, callback: (err: Error | null, html?: string) => void) =>
    ejs.renderFile(file, data, { cache: !options.development, compileDebug: Boolean(options.development), views: [VIEWS_DIR] }, callback),
  );
  const metrics = deps.metrics instanceof PrometheusMetrics ? deps.metrics : undefined;
  const isShuttingDown = options.isShuttingDown ?? (() => false);
  app.use(requestLog(deps, isShuttingDown, metrics && httpMetrics(app, metrics)));
  const headers = securityHeaders(gatewayHelmetOptions(deps.baseUrl));
  const throttle = authThrottle(deps);
  const signature = strictSignature(deps);
  const replays = idempotency(deps);
  const api = [
    authoriseRouter(deps),
    operationsRouter(deps),
    retrievalRouter(deps),
    subscriptionsRouter(deps),
    notificationsRouter(deps),
    payoutRouter(deps),
    disputesRouter(deps),
    optimiseRouter(deps),
    checkoutRouter(deps),
    testClocksRouter(deps),
    savedCardsRouter(deps),
  ];
  // the API's fixed POST routes skip the router's walk (http/post-dispatch.ts), with the same middlewares in
  // the same order as below, where everything else still goes; another spelling of their paths (/V1/CAPTURE,
  // /v1/capture/) is served and checked as the endpoint (docs/security.md)
  const dispatched = fixedPostRoutes(api, '/v1/');
  app.use(postDispatch(dispatched, [headers, throttle, gatewayBody, signature, replays]));
  // acquirers' webhooks, before the body parser: their signatures cover the raw bytes
  app.use(connectorWebhooksRouter(deps));
  // merchants' pages load embed.js, and the loading page (served by the merchant) its script and styles
  app.use(
    '/public',
    express.static(PUBLIC_DIR, {
      index: false,
      // Subresource Integrity on a page of another origin (the loading page) needs a CORS answer
      setHeaders: (res) => {
        res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
        res.setHeader('Access-Control-Allow-Origin', '*');
      },
    }),
  );
  // the middlewares every call passes, in this order, run as one layer (http/middleware/chain.ts)
  app.use(
    chain(
      headers,
      readOnly(pageAssetsRouter(deps, app.locals.operatorLogo as Logo | undefined), healthRouter(deps.store, isShuttingDown)),
      throttle,
      readOnly(
        ...(metrics ? [metricsRouter(metrics, options.metricsAllow ?? ['127.0.0.1', '::1'])] : []),
        docsRouter(deps.baseUrl),
        frontDoorRouter({ baseUrl: deps.baseUrl, store: options.store ?? 'memory', development: options.development ?? false }),
      ),
      gatewayBody,
      signature,
    ),
  );
  app.use('/v1', replays);
  for (const router of api) app.use(router);
  app.use(hostedPagesRouter(deps));
  app.use(threedsRouter(deps));
  app.use(portalRouter(deps));
  app.use(adminRouter(deps));
  if (options.development) app.use(exampleShopRouter(deps));
  app.use(notFound);
  app.use(countAuthFailures(deps));
  app.use(errorHandler(deps.log, deps.timezone));
  const missing = undispatched(appRoutes(app), dispatched, '/v1/');
  if (missing.length > 0) throw new Error(`API routes outside the POST dispatch (add their router to the api list): ${missing.join(', ')}`);
  return app;
}
