import express, { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedPostRoutes, postDispatch, undispatched } from '../../src/http/post-dispatch.js';
import { appRoutes } from '../../src/http/route-table.js';
import { authoriseBody, makeGateway, type TestGateway } from '../support/gateway.js';
import { signBody } from '../support/sign.js';

const answer =
  (name: string): RequestHandler =>
  (req, res) =>
    void res.json({ name, seen: res.locals.seen, url: req.originalUrl });
const note =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    (res.locals.seen ??= []).push(name);
    next();
  };

describe('fixedPostRoutes: the API routes the dispatch may serve', () => {
  it('when routers declare routes, then only POST routes of fixed text under the prefix are taken, the first of a path wins, and a router with its own middleware is left out whole', () => {
    const a = Router();
    a.post('/v1/a', note('a-mw'), answer('a'));
    a.get('/v1/only-get', answer('get'));
    a.post('/v1/item/:id', answer('param'));
    a.post('/elsewhere', answer('elsewhere'));
    const withUse = Router();
    withUse.use(note('router-mw'));
    withUse.post('/v1/b', answer('b'));
    const later = Router();
    later.post('/v1/a', answer('second a'));
    later.post('/v1/c', answer('c'));
    const table = fixedPostRoutes([a, withUse, later], '/v1/');
    expect([...table.keys()].sort()).toEqual(['/v1/a', '/v1/c']);
    expect(table.get('/v1/a')).toHaveLength(2);
  });
});

describe('undispatched: the app refuses to start with an API route the dispatch does not serve', () => {
  it('when a router with its own middleware declares a fixed POST route, then that route is named', () => {
    const plain = Router();
    plain.post('/v1/a', answer('a'));
    const withUse = Router();
    withUse.use(note('router-mw'));
    withUse.post('/v1/b', answer('b'));
    withUse.post('/v1/item/:id', answer('param'));
    const app = express();
    app.use(plain);
    app.use(withUse);
    expect(undispatched(appRoutes(app), fixedPostRoutes([plain, withUse], '/v1/'), '/v1/')).toEqual(['/v1/b']);
    expect(undispatched(appRoutes(app), fixedPostRoutes([plain], '/v1/'), '/v1/')).toEqual(['/v1/b']);
    expect(
      undispatched(
        appRoutes(app),
        new Map([
          ['/v1/a', []],
          ['/v1/b', []],
        ]),
        '/v1/',
      ),
    ).toEqual([]);
  });
});

describe('postDispatch: fixed POST routes served in one layer, with the router as before for everything else', () => {
  function appWith(front: RequestHandler[], routers: Router[]) {
    const app = express();
    app.use(postDispatch(fixedPostRoutes(routers, '/v1/'), front));
    app.use(note('front-again'));
    for (const r of routers) app.use(r);
    const onError: ErrorRequestHandler = (err: Error, _req, res, _next) => {
      res.status(418).json({ error: err.message, seen: res.locals.seen });
    };
    app.use(onError);
    return app;
  }

  it('when a fixed POST route is called, then the front middlewares and the route run in order, and not the router path', async () => {
    const r = Router();
    r.post('/v1/pay', note('route-mw'), answer('pay'));
    const res = await request(appWith([note('f1'), note('f2')], [r])).post('/v1/pay?x=1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'pay', seen: ['f1', 'f2', 'route-mw'], url: '/v1/pay?x=1' });
  });

  it('when the call is not a fixed POST route (GET, a parameter, another path), then the router serves it', async () => {
    const r = Router();
    r.post('/v1/pay', answer('pay'));
    r.get('/v1/pay', answer('get pay'));
    r.post('/v1/pay/:id', answer('pay one'));
    const app = appWith([note('f1')], [r]);
    expect((await request(app).get('/v1/pay')).body.seen).toEqual(['front-again']);
    expect((await request(app).post('/v1/pay/7')).body).toMatchObject({ name: 'pay one', seen: ['front-again'] });
    expect((await request(app).post('/v1/payment')).status).toBe(404);
  });

  it('when a fixed POST route is named in another letter case or with a trailing slash, then it is served as the endpoint, under its own path', async () => {
    const r = Router();
    r.post('/v1/pay', (req, res) => void res.json({ path: req.path, url: req.url, originalUrl: req.originalUrl, seen: res.locals.seen }));
    const app = appWith([note('f1')], [r]);
    for (const sent of ['/V1/PAY', '/v1/pay/', '/v1/Pay/?x=1']) {
      const res = await request(app).post(sent);
      expect(res.body, sent).toEqual({
        path: '/v1/pay',
        url: sent.includes('?') ? '/v1/pay?x=1' : '/v1/pay',
        originalUrl: sent,
        seen: ['f1'],
      });
    }
    expect((await request(app).post('/v1/pay//')).status).toBe(404);
  });

  it('when a front middleware or the route throws, calls next(err) or rejects, then the app error handler answers it', async () => {
    const r = Router();
    r.post('/v1/throws', () => {
      throw new Error('thrown');
    });
    r.post('/v1/rejects', async () => {
      await Promise.resolve();
      throw new Error('rejected');
    });
    const refuse: RequestHandler = (req, _res, next) => (req.get('x-refuse') ? next(new Error('refused in front')) : next());
    const app = appWith([note('f1'), refuse], [r]);
    expect((await request(app).post('/v1/throws')).body).toEqual({ error: 'thrown', seen: ['f1'] });
    expect((await request(app).post('/v1/rejects')).body).toEqual({ error: 'rejected', seen: ['f1'] });
    const refused = await request(app).post('/v1/throws').set('x-refuse', '1');
    expect(refused.status).toBe(418);
    expect(refused.body).toEqual({ error: 'refused in front', seen: ['f1'] });
  });
});

describe('the gateway: an endpoint named in another letter case answers as the endpoint', () => {
  let gw: TestGateway;
  beforeAll(() => {
    gw = makeGateway({ name: 'post-dispatch' });
  });
  afterAll(async () => {
    await gw?.close();
  });

  /** The answer's headers but the ones that differ per call. */
  const stableHeaders = (headers: Record<string, string>) => {
    const { date: _d, 'x-request-id': _r, 'content-length': _l, ...rest } = headers;
    return rest;
  };

  it('when a payment is sent to /V1/AUTHORISE, then its status, headers and answer are those of /v1/authorise', async () => {
    const asEndpoint = await request(gw.app).post('/v1/authorise').type('form').send(authoriseBody());
    const otherCase = await request(gw.app).post('/V1/AUTHORISE').type('form').send(authoriseBody());
    expect(asEndpoint.status).toBe(200);
    expect(otherCase.status).toBe(200);
    expect(stableHeaders(asEndpoint.headers)).toEqual(stableHeaders(otherCase.headers));
    // helmet's headers are on both
    expect(asEndpoint.headers['content-security-policy']).toBeDefined();
    const shape = (xml: string) => xml.replace(/>[^<]*</g, '><');
    expect(shape(asEndpoint.text)).toBe(shape(otherCase.text));
    expect(asEndpoint.text).toContain('<status>');
  });

  it("when any fixed POST endpoint of the API is named in capitals or with a trailing slash, then the answer is the endpoint's own", async () => {
    const endpoints = appRoutes(gw.app)
      .filter((r) => r.method === 'POST' && /^\/v1\/[\w/]+$/.test(r.path))
      .map((r) => r.path);
    expect(endpoints).toEqual(expect.arrayContaining(['/v1/authorise', '/v1/capture', '/v1/refund', '/v1/checkout', '/v1/payout/query']));
    const forged = JSON.stringify({ ...authoriseBody(), encryption_data: 'ab'.repeat(32) });
    const send = (path: string) => request(gw.app).post(path).set('Accept', 'application/json').type('form').send(forged);
    for (const endpoint of endpoints) {
      const own = await send(endpoint);
      for (const spelling of [endpoint.toUpperCase(), `${endpoint}/`]) {
        const other = await send(spelling);
        expect(other.status, spelling).toBe(own.status);
        expect({ ...other.body, request_id: undefined }, spelling).toEqual({ ...own.body, request_id: undefined });
      }
    }
  });

  it("when a call to another spelling is refused (a bad signature, a bad body), then the refusal is the endpoint's, return_status included", async () => {
    const badSignature = { ...authoriseBody(), encryption_data: 'f'.repeat(64) };
    const a = await request(gw.app).post('/v1/authorise').set('Accept', 'application/json').type('form').send(badSignature);
    const b = await request(gw.app).post('/V1/authorise').set('Accept', 'application/json').type('form').send(badSignature);
    expect(a.status).toBeGreaterThanOrEqual(400);
    expect(b.status).toBe(a.status);
    const withoutId = (body: Record<string, unknown>) => ({ ...body, request_id: undefined });
    expect(withoutId(b.body)).toEqual(withoutId(a.body));
    const badAmount = signBody({ ...authoriseBody(), amount: '-1' }, ['merchant_id', 'account_id', 'order_no', 'currency', 'amount'], 'x');
    const c = await request(gw.app).post('/v1/capture').set('Accept', 'application/json').type('form').send(badAmount);
    const d = await request(gw.app).post('/v1/Capture').set('Accept', 'application/json').type('form').send(badAmount);
    expect(c.status).toBeGreaterThanOrEqual(400);
    expect(d.status).toBe(c.status);
    expect(withoutId(d.body)).toEqual(withoutId(c.body));
    // a batch call's refusal carries return_status (error-handler.ts), which went by the path as sent
    expect(d.body.return_status).toBe('0');
  });
});
