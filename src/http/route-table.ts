import type { Express } from 'express';

/** One route the app answers: its method and its path pattern as declared (`/v1/3ds/:merchantId/...`). */
export interface AppRoute {
  method: string;
  path: string;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/**
 * Every route of an app, read from Express's own router (routers mounted at the root, as app.ts mounts
 * them). The metrics label requests that no route answered with these patterns, and the OpenAPI test
 * checks that each /v1 route is in the document.
 */
export function appRoutes(app: Express): AppRoute[] {
  const out: AppRoute[] = [];
  const walk = (stack: Layer[] | undefined): void => {
    for (const layer of stack ?? []) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths)
          for (const [method, on] of Object.entries(layer.route.methods))
            if (on && method !== '_all') out.push({ method: method.toUpperCase(), path });
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return out;
}
