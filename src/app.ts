import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { randomUUID } from 'node:crypto';
import type { CoreDeps } from './core/context.js';
import { gatewayBody } from './http/body.js';
import { errorHandler, notFound } from './http/error-handler.js';
import { healthRouter } from './http/routes/health.js';
import { authoriseRouter } from './http/routes/authorise.js';
import { operationsRouter } from './http/routes/operations.js';
import { retrievalRouter } from './http/routes/retrieval.js';
import { idempotency } from './http/idempotency.js';
import { subscriptionsRouter } from './http/routes/subscriptions.js';
import { notificationsRouter } from './http/routes/notifications.js';
import { payoutRouter } from './http/routes/payout.js';

export interface AppOptions {
  trustProxy?: string | boolean | number | undefined;
  isShuttingDown?: () => boolean;
}

/** Tags every request with an id (echoed in X-Request-Id and in error bodies) and logs its outcome. */
function requestLog(deps: CoreDeps) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = req.get('x-request-id');
    const id = header && /^[\w.-]{1,64}$/.test(header) ? header : randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // one line per request; routers add what the call did (transaction id, status) in res.locals.outcome
      deps.log.info(
        { request_id: id, method: req.method, path: req.path, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6, ...res.locals.outcome },
        'request',
      );
    });
    next();
  };
}

/** Builds the Express app around the core; no listen here, so tests run it on port 0 with supertest. */
export function createApp(deps: CoreDeps, options: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
  app.use(requestLog(deps));
  app.use(helmet());
  app.use(healthRouter(deps.store, options.isShuttingDown ?? (() => false)));
  app.use(gatewayBody);
  app.use('/v1', idempotency(deps));
  app.use(authoriseRouter(deps));
  app.use(operationsRouter(deps));
  app.use(retrievalRouter(deps));
  app.use(subscriptionsRouter(deps));
  app.use(notificationsRouter(deps));
  app.use(payoutRouter(deps));
  app.use(notFound);
  app.use(errorHandler(deps.log));
  return app;
}
