import type { NextFunction, Request, RequestHandler, Response } from 'express';

interface Layer {
  route?: unknown;
  handle?: unknown;
}

/**
 * Runs middlewares one after the other as a single one, with Express's own rules: a thrown error or a
 * rejected promise goes to the error handlers, `next(err)` too, and `next()` past the last one continues
 * the app's stack. Express's router gives every layer a path match and a trip through its `next`; on the
 * authorise path (`npm run bench -- --profile`) the front middlewares as separate layers cost more than their
 * own work. The routers among them keep their routes visible to the route table through `stack`.
 */
export function chain(...handlers: RequestHandler[]): RequestHandler & { stack: Layer[] } {
  const run = (req: Request, res: Response, next: NextFunction): void => {
    let i = 0;
    const step = (err?: unknown): void => {
      // as in Express's router: 'route' goes on with the next middleware, 'router' leaves the router
      if (err === 'router') return next(err);
      if (err && err !== 'route') return next(err);
      const handler = handlers[i++];
      if (handler === undefined) return next();
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise) result.then(undefined, (e: unknown) => step(e ?? new Error('Rejected promise')));
      } catch (e) {
        step(e);
      }
    };
    step();
  };
  const stack = handlers.flatMap((h) => ((h as { stack?: Layer[] }).stack ?? []) as Layer[]);
  return Object.assign(run, { stack });
}
