import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { chain } from './middleware/chain.js';
import type { AppRoute } from './route-table.js';

interface RouteLayer {
  route?: { path: unknown; methods: Record<string, boolean>; stack: { method?: string; handle: RequestHandler }[] };
}

/** A route path with nothing to match but its text (no parameter, wildcard or pattern). */
const FIXED_PATH = /^\/[\w/-]*$/;

/** A route path the dispatch may serve: fixed text under `prefix`. */
const fixedUnder = (path: unknown, prefix: string): path is string =>
  typeof path === 'string' && path.startsWith(prefix) && FIXED_PATH.test(path);

/**
 * The POST routes under `prefix` whose path is fixed text (every merchant call of http/calls), read from the
 * routers as built: path -> the route's handlers. A router with a middleware of its own (`router.use`) is left
 * out whole, so that nothing it would run is skipped; a path that two routers declare goes to the first, as in
 * Express.
 */
export function fixedPostRoutes(routers: readonly Router[], prefix: string): Map<string, RequestHandler[]> {
  const table = new Map<string, RequestHandler[]>();
  for (const router of routers) {
    const stack = router.stack as RouteLayer[];
    if (!stack.every((layer) => layer.route)) continue;
    for (const { route } of stack) {
      const path = route!.path;
      if (!route!.methods.post || !fixedUnder(path, prefix) || table.has(path)) continue;
      table.set(
        path,
        route!.stack.filter((l) => l.method === undefined || l.method === 'post').map((l) => l.handle),
      );
    }
  }
  return table;
}

/**
 * The app's fixed POST routes under `prefix` that `table` lacks. Each of them would be served by the router,
 * where another spelling of its path skips the checks that go by path: the app refuses to start with one.
 */
export function undispatched(routes: readonly AppRoute[], table: ReadonlyMap<string, unknown>, prefix: string): string[] {
  return routes.filter((r) => r.method === 'POST' && fixedUnder(r.path, prefix) && !table.has(r.path)).map((r) => r.path);
}

/** A path as Express's router matches it by default: in any letter case, with or without one trailing slash. */
const folded = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase();

/**
 * One layer in front of the app's router for the API's fixed POST routes: a call is looked up by its path and
 * runs `front` (the middlewares every such call passes, in the app's order) and its route's handlers as one
 * chain (middleware/chain.ts), with Express's rules for errors, which go on to the app's error handlers.
 * Through the router a call passed a path match per layer, the `/v1` mount's prefix trimming and the route's
 * router, a share of the gateway's CPU per authorisation worth saving (`npm run bench -- --profile`; the
 * measurements and their noise: docs/performance.md, "Library bypasses").
 *
 * A call that names an endpoint in another letter case or with a trailing slash (`/V1/CAPTURE`,
 * `/v1/refund/`), which Express's router routes to the endpoint too, is given the endpoint's own path first.
 * The checks that go by path (strict signing, the authentication throttle, body limits, the error's
 * return_status) then see the endpoint it reaches; otherwise such a call would reach the
 * endpoint with every one of them skipped. Anything else (another method, a path with parameters) goes on
 * through the router.
 */
export function postDispatch(table: ReadonlyMap<string, readonly RequestHandler[]>, front: readonly RequestHandler[]): RequestHandler {
  const routes = new Map<string, RequestHandler>();
  const spellings = new Map<string, string>();
  for (const [path, handlers] of table) {
    routes.set(path, chain(...front, ...handlers));
    spellings.set(folded(path), path);
  }
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'POST') return next();
    let run = routes.get(req.path);
    if (run === undefined) {
      const endpoint = spellings.get(folded(req.path));
      if (endpoint === undefined) return next();
      const query = req.url.indexOf('?');
      req.url = query < 0 ? endpoint : endpoint + req.url.slice(query);
      run = routes.get(endpoint)!;
    }
    // what the router sets for a route it matched (a fixed path has no parameters); the metrics label a
    // call that no route object marks by its path, which is the route's here
    req.params = {};
    void run(req, res, next);
  };
}
