import { Router, type Response } from 'express';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { openApiDocument } from '../openapi/document.js';

const require = createRequire(import.meta.url);
/** swagger-ui-dist, served from node_modules by the gateway itself: no CDN, so the CSP stays 'self'. */
const SWAGGER_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
/** Looked up by a name from the request's path: a Map, so `constructor` or `__proto__` names no asset. */
const ASSETS: ReadonlyMap<string, { file: string; type: string }> = new Map([
  ['swagger-ui-bundle.js', { file: join(SWAGGER_DIR, 'swagger-ui-bundle.js'), type: 'text/javascript' }],
  ['swagger-ui.css', { file: join(SWAGGER_DIR, 'swagger-ui.css'), type: 'text/css' }],
]);

/** Starts Swagger UI on /openapi.json (a file of its own: the page's CSP allows no inline script). */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, layout: 'BaseLayout' });
});
`;

/** Only the gateway's own files: scripts and styles from 'self', no inline script, no eval. */
const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const sri = (body: string | Buffer) => `sha384-${createHash('sha384').update(body).digest('base64')}`;

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function docsPage(bundleSri: string, cssSri: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payment gateway API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css" integrity="${cssSri}">
</head>
<body>
<main id="swagger-ui"><noscript>This page renders /openapi.json with Swagger UI and needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript></main>
<script src="/docs/assets/swagger-ui-bundle.js" integrity="${bundleSri}"></script>
<script src="/docs/init.js" integrity="${sri(INIT_SCRIPT)}"></script>
</body>
</html>
`;
}

/** GET /openapi.json (the OpenAPI 3.1 document, built once) and GET /docs (Swagger UI rendering it). */
export function docsRouter(baseUrl: string): Router {
  const router = Router();
  let document: string | undefined;
  let page: string | undefined;
  const assets = new Map<string, Buffer>();
  const asset = (name: string): Buffer => {
    let body = assets.get(name);
    if (!body) assets.set(name, (body = readFileSync(ASSETS.get(name)!.file)));
    return body;
  };
  const strict = (res: Response) => res.setHeader('Content-Security-Policy', DOCS_CSP);

  router.get('/openapi.json', (_req, res) => {
    document ??= JSON.stringify(openApiDocument(baseUrl, packageVersion()));
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.type('application/json').send(document);
  });
  router.get('/docs', (_req, res) => {
    page ??= docsPage(sri(asset('swagger-ui-bundle.js')), sri(asset('swagger-ui.css')));
    strict(res);
    res.type('text/html').send(page);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('text/javascript').send(INIT_SCRIPT);
  });
  router.get('/docs/assets/:name', (req, res, next) => {
    const spec = ASSETS.get(req.params.name);
    if (!spec) return next();
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type(spec.type).send(asset(req.params.name));
  });
  return router;
}
