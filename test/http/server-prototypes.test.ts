import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayServer, madeWith } from '../../src/http/server.js';
import { authoriseBody, makeGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
let server: Server;
let base: string;
/** the prototypes of each request and response as node handed them to the server, before Express */
const seen: { req: object | null; res: object | null }[] = [];

beforeAll(async () => {
  gw = makeGateway({ name: 'server-prototypes' });
  server = createGatewayServer(gw.app, gw.config.serverLimits);
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ req: Object.getPrototypeOf(req) as object | null, res: Object.getPrototypeOf(res) as object | null });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await gw.close();
});

/** A call as a client sends it over the network, through the gateway's own server. */
async function call(path: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${base}${path}`, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const form = (body: Record<string, unknown>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString(),
});

/** Header names a response carries, without the ones that differ by transport (supertest's server or ours). */
const headerNames = (h: Headers | Record<string, unknown>): string[] =>
  [...(h instanceof Headers ? h.keys() : Object.keys(h))].filter((n) => !['date', 'connection', 'keep-alive'].includes(n)).sort();

describe("createGatewayServer: requests are made with the app's prototypes", () => {
  it("when a request reaches the server, then node made it and its response with Express's prototypes of this app", async () => {
    seen.length = 0;
    const health = await call('/healthz');
    expect(health.status).toBe(200);
    expect(seen).toHaveLength(1);
    // before, node made them as IncomingMessage and ServerResponse, and Express swapped the prototypes
    expect(seen[0]!.req).toBe(gw.app.request);
    expect(seen[0]!.res).toBe(gw.app.response);
  });

  it('when a payment, a refused call, an unknown path and a page are served, then each answers as through supertest', async () => {
    const approved = authoriseBody();
    const ours = await call('/v1/authorise', form(approved));
    expect(ours.status).toBe(200);
    expect(ours.text).toContain('<order_status>1</order_status>');
    expect(ours.text).toContain(`<order_no>${approved.order_no}</order_no>`);
    expect(ours.headers.get('content-type')).toMatch(/xml/);
    expect(ours.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
    const viaSupertest = await request(gw.app).post('/v1/authorise').type('form').send(authoriseBody());
    expect(headerNames(ours.headers)).toEqual(headerNames(viaSupertest.headers));

    const refused = authoriseBody({ amount: 'ten' });
    const bad = await call('/v1/authorise', form(refused));
    const badViaSupertest = await request(gw.app).post('/v1/authorise').type('form').send(refused);
    expect(bad.status).toBe(badViaSupertest.status);
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.text).toContain('amount');
    expect(headerNames(bad.headers)).toEqual(headerNames(badViaSupertest.headers));

    const missing = await call('/no/such/page', { headers: { accept: 'application/json' } });
    const missingViaSupertest = await request(gw.app).get('/no/such/page').set('accept', 'application/json');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toMatchObject({ code: 'NOT_FOUND', message: 'no such endpoint: GET /no/such/page' });
    expect(Object.keys(JSON.parse(missing.text) as object).sort()).toEqual(Object.keys(missingViaSupertest.body as object).sort());

    const page = await call('/');
    const pageViaSupertest = await request(gw.app).get('/');
    expect(page.status).toBe(pageViaSupertest.status);
    expect(page.headers.get('content-security-policy')).toBe(pageViaSupertest.headers['content-security-policy']);
    expect(page.text).toBe(pageViaSupertest.text);
  });
});

describe('madeWith', () => {
  it('when the base is a plain constructor, then its objects are initialised by it and carry the given prototype', () => {
    function Base(this: { made: number }, n: number): void {
      this.made = n;
    }
    const proto = Object.create(Base.prototype as object) as object;
    const Made = madeWith(Base as unknown as typeof IncomingMessage, proto) as unknown as new (n: number) => { made: number };
    const o = new Made(7);
    expect(o.made).toBe(7);
    expect(Object.getPrototypeOf(o)).toBe(proto);
  });

  it('when the base is a class (which cannot be called on an object), then none is made and node keeps its own', () => {
    class Base {}
    expect(madeWith(Base as unknown as typeof IncomingMessage, {})).toBeUndefined();
  });
});
