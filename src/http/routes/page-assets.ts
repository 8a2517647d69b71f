import { Router, type Response } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { pageAssets, type Logo } from '../render/assets.js';

/**
 * The hosted pages' script inventory (docs/checkout.md, PCI DSS 4.0 6.4.3): every script and stylesheet they load,
 * with its SHA-384 (the integrity value the pages carry) and its purpose; and the generated branding files.
 */
export function pageAssetsRouter(deps: CoreDeps, operatorLogo?: Logo): Router {
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
  const sendLogo = (res: Response, logo: Logo): void => {
    // an SVG opened on its own runs nothing and loads nothing
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.type(logo.contentType).send(logo.body);
  };
  router.get('/assets/logos/:file', (req, res, next) => {
    const logo = assets.logos.get(req.params.file.replace(/\.\w+$/, ''));
    if (!logo || !logo.path.endsWith(`/${req.params.file}`)) return next();
    sendLogo(res, logo);
  });
  router.get('/assets/operator/:file', (req, res, next) => {
    if (!operatorLogo || operatorLogo.path !== `/assets/operator/${req.params.file}`) return next();
    // the address changes with the file, so the image may be kept
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    sendLogo(res, operatorLogo);
  });
  return router;
}
