import { bodyLimitFor } from '../../../src/http/middleware/body.js';
import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { appRoutes } from '../../../src/http/route-table.js';
import { captureAnswerSchema, errorSchema } from '../../../src/http/openapi/answers.js';
import { redisWorld } from '../../support/redis-world.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY } from '../../support/gateway.js';
import { authorise } from '../../support/jobs.js';
import { FIELDS, signBatch } from '../../support/sign.js';

const world = redisWorld('openapi');

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; 'x-request-signature'?: string[]; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, { required?: string[]; properties?: Record<string, Record<string, unknown>> }> };
};

async function documentOf(gw: ReturnType<typeof world.gateway>): Promise<Doc> {
  const res = await request(gw.app).get('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.body as Doc;
}

describe('GET /openapi.json', () => {
  it('when fetched, then it is a valid OpenAPI 3.1 document (checked by a maintained validator)', async () => {
    const doc = await documentOf(world.gateway('openapi-valid', new ManualClock()));
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('when compared with the app, then every route the app answers is in it with its method', async () => {
    // with OPERATOR_KEYS, so the operators' API (served only then) is among the app's routes
    const gw = world.gateway('openapi-complete', new ManualClock(), { env: { OPERATOR_KEYS: `ops:${'s'.repeat(32)}` } });
    const doc = await documentOf(gw);
    const routes = appRoutes(gw.app);
    expect(routes.length).toBeGreaterThan(20);
    const missing = routes
      .filter((r) => !doc.paths[r.path.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()])
      .map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    // and nothing is documented that the app does not answer
    // the pages' own files are served by express.static (app.ts), which is no route: the document lists them as /public/{file}
    const answered = new Set([
      ...routes.map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
      'get /public/{file}',
    ]);
    expect((await request(gw.app).get('/public/embed.js')).status).toBe(200);
    const extra = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => !answered.has(`${m} ${path}`)));
    expect(extra).toEqual([]);
  });

  it('when a call is read, then its request schema is the route’s zod schema, with the signature rule and error bodies', async () => {
    const doc = await documentOf(world.gateway('openapi-calls', new ManualClock()));
    const capture = doc.components.schemas.CaptureRequest!;
    expect(capture.required).toEqual(expect.arrayContaining(['merchant_id', 'account_id', 'encryption_data', 'capture_orders']));
    expect(capture.properties!.capture_orders).toMatchObject({ type: 'array', minItems: 1, maxItems: 50 });
    expect(doc.components.schemas.ReviewRequest!.properties!.review_orders).toMatchObject({ maxItems: 100 });
    expect(capture.properties!.merchant_id).toMatchObject({ maxLength: 7 });
    expect(doc.components.schemas.AuthoriseRequest!.properties!.amount!.description).toMatch(/two fraction digits/);
    expect(doc.paths['/v1/authorise']!.post!['x-request-signature']).toEqual(FIELDS.authorise);
    expect(doc.paths['/v1/checkout']!.post!['x-request-signature']).toEqual(FIELDS.checkout);
    expect(doc.paths['/v1/payout']!.post!['x-request-signature']).toEqual(FIELDS.payout);
    expect(doc.paths['/v1/optimise']!.post!['x-request-signature']).toEqual([
      'merchant_id',
      'account_id',
      'request_id',
      'currency',
      'amount',
      'shopper_email',
    ]);
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/') || !ops.post?.['x-request-signature']) continue;
      expect(Object.keys(ops.post.responses), path).toEqual(expect.arrayContaining(['200', '400', '401']));
    }
  });

  it('when its operations are read, then each says who may call it, what it does and what it answers (issue 43)', async () => {
    const doc = (await documentOf(world.gateway('openapi-operations', new ManualClock()))) as Doc & {
      components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
    };
    expect(doc.components.securitySchemes.portalSession).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'portal_session' });
    type Op = { description?: string; security?: unknown[]; responses: Record<string, { content?: Record<string, unknown> }> } & Json;
    type Json = Record<string, unknown>;
    const ops = Object.entries(doc.paths).flatMap(([path, o]) =>
      Object.entries(o).map(([method, op]) => ({ path, method, op: op as unknown as Op })),
    );
    for (const { path, method, op } of ops) {
      expect(op.description, `${method} ${path}`).toMatch(/\w/);
      // sign-in, sign-out and an invitation's link (its token is the credential) need no session
      const portal =
        path.startsWith('/portal') && path !== '/portal/login' && path !== '/portal/logout' && !path.startsWith('/portal/invite/');
      const operators = path.startsWith('/admin/');
      expect(op.security, `${method} ${path}`).toEqual(portal ? [{ portalSession: [] }] : operators ? [{ operatorKey: [] }] : []);
    }
    const call = (path: string) => doc.paths[path]!.post! as unknown as Op;
    for (const { path, op } of ops.filter((o) => o.op['x-request-signature']))
      expect(Object.keys(op.responses), path).toEqual(expect.arrayContaining(['409', '413', '429', '503']));
    expect(Object.keys(call('/v1/authorise').responses['400']!.content!)).toEqual(['application/json', 'application/xml']);
    for (const path of ['/v1/capture', '/v1/authorise'])
      expect(JSON.stringify(call(path).responses['413'])).toContain(`Body over ${bodyLimitFor(path) / 1024} KB`);
    expect(doc.paths['/readyz']!.get!.responses).toHaveProperty('503');
    expect(doc.paths['/portal/payments.csv']!.get!.responses).toHaveProperty('303');
    const schemas = doc.components.schemas as Record<string, Json & { properties?: Record<string, Json> }>;
    expect(schemas.AuthoriseRequest!.anyOf).toEqual([
      expect.objectContaining({ required: ['card', 'expiration_month', 'expiration_year', 'security_code'] }),
      expect.objectContaining({ required: ['token_id'] }),
    ]);
    expect(schemas.AuthoriseRequest!.properties!.currency!.enum).toContain('USD');
    expect(schemas.AuthoriseRequest!.properties!.amount!.pattern).toBeDefined();
    const form = (call('/v1/authorise').requestBody as { content: Record<string, { encoding?: Json }> }).content[
      'application/x-www-form-urlencoded'
    ]!;
    expect(form.encoding).toMatchObject({ cart_items: { contentType: 'application/json' } });
  });

  it('when a portal page is read, then it documents how its language is chosen: the lang query and the portal_lang cookie', async () => {
    const doc = await documentOf(world.gateway('openapi-portal-lang', new ManualClock()));
    type Param = { name: string; in: string; schema?: { enum?: string[] } };
    const pages = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/portal'))
      .flatMap(([path, o]) =>
        Object.entries(o).map(([method, op]) => ({ at: `${method} ${path}`, params: (op as { parameters?: Param[] }).parameters ?? [] })),
      );
    expect(pages.length).toBeGreaterThan(10);
    for (const { at, params } of pages) {
      const lang = params.find((p) => p.name === 'lang');
      expect(lang, at).toMatchObject({ in: 'query' });
      expect(lang!.schema!.enum, at).toEqual(expect.arrayContaining(['en', 'de', 'ar']));
      expect(
        params.find((p) => p.name === 'portal_lang'),
        at,
      ).toMatchObject({ in: 'cookie' });
    }
  });

  it('when real answers are read against the answer schemas, then they fit (the document describes what is sent)', async () => {
    const gw = world.gateway('openapi-answers', new ManualClock());
    const paid = await authorise(gw);
    const body = signBatch(
      {
        merchant_id: MERCHANT_ID,
        account_id: ACCOUNT_ID,
        capture_orders: [
          { transaction_id: paid.transaction_id, order_no: paid.order_no, currency: 'USD', amount: '10.00' },
          { transaction_id: 'T-unknown', order_no: 'nope', currency: 'USD', amount: '10.00' },
        ],
      },
      'capture_orders',
      SIGN_KEY,
    );
    const res = await request(gw.app).post('/v1/capture').type('json').send(JSON.stringify(body));
    expect(res.status).toBe(200);
    expect(captureAnswerSchema.safeParse(res.body).error).toBeUndefined();
    const refused = await request(gw.app).post('/v1/capture').type('json').send('{"merchant_id":');
    expect(refused.status).toBe(400);
    expect(errorSchema.safeParse(refused.body).error).toBeUndefined();
  });
});

describe('GET /docs', () => {
  it('when fetched, then the page loads only the gateway’s own renderer files, with integrity, under a strict CSP', async () => {
    const gw = world.gateway('openapi-docs', new ManualClock());
    const res = await request(gw.app).get('/docs');
    expect(res.status).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    const scripts = [...res.text.matchAll(/<script src="([^"]+)" integrity="(sha384-[^"]+)"/g)];
    expect(scripts.map((s) => s[1])).toEqual(['/docs/assets/swagger-ui-bundle.js', '/docs/init.js']);
    for (const [, src, integrity] of scripts) {
      const file = await request(gw.app).get(src!);
      expect(file.status).toBe(200);
      const { createHash } = await import('node:crypto');
      expect(
        `sha384-${createHash('sha384')
          .update(file.body instanceof Buffer ? file.body : file.text)
          .digest('base64')}`,
      ).toBe(integrity);
    }
    expect((await request(gw.app).get('/docs/assets/package.json')).status).toBe(404);
  });
});

describe('GET / (front door)', () => {
  it('when a newcomer opens the address, then a page says what runs, on which store, and links the docs, portal and health', async () => {
    const gw = world.gateway('front-door', new ManualClock());
    const res = await request(gw.app).get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<dd id="store">Redis/);
    for (const href of ['/docs', '/openapi.json', '/portal', '/healthz', '/readyz']) expect(res.text).toContain(`href="${href}"`);
    // the example shop is served in development only, and linked only then
    expect(res.text).not.toContain('/examples/shop');
  });
});
