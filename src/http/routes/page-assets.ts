import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { pageAssets } from '../render/assets.js';

/**
 * The hosted pages' script inventory (docs/checkout.md, PCI DSS 4.0 6.4.3): every script and stylesheet they load,
 * with its SHA-384 (the integrity value the pages carry) and its purpose; and the generated branding files.
 */
export function pageAssetsRouter(deps: CoreDeps): Router {
  const router = Router();
  const assets = pageAssets(deps.merchants);
  router.get('/.well-known/payment-page-scripts.json', (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.json({
      base_url: deps.baseUrl,
      algorithm: 'sha384',
      scripts: assets.inventory().map((a) => ({ path: a.path, type: a.type, hash: a.hash, purpose: a.purpose })),
    });
  });
  router.get('/assets/branding.css', (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.type('text/css').send(assets.brandingCss);
  });
  router.get('/assets/logos/:file', (req, res, next) => {
    const logo = assets.logos.get(req.params.file.replace(/\.\w+$/, ''));
    if (!logo || !logo.path.endsWith(`/${req.params.file}`)) return next();
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.type(logo.contentType).send(logo.body);
  });
  return router;
}
