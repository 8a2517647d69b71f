import { Router } from 'express';
import { readFileSync } from 'node:fs';

export interface FrontDoorInfo {
  baseUrl: string;
  store: 'redis' | 'memory';
  development: boolean;
}

const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** GET /: a small page for a newcomer, instead of a 404: what runs, on which store, and where to go. */
export function frontDoorRouter(info: FrontDoorInfo): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    res.render('front-door', { ...info, version: VERSION });
  });
  return router;
}
