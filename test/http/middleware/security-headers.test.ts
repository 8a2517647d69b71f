import { describe, expect, it } from 'vitest';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { securityHeaders } from '../../../src/http/middleware/security-headers.js';
import { makeGateway } from '../../support/gateway.js';

/** An app whose one route answers after the given headers middleware, with a header of its own first. */
function appWith(headers: RequestHandler) {
  const app = express();
  app.use((_req, res, next) => {
    res.setHeader('X-Powered-By', 'something');
    res.setHeader('X-Frame-Options', 'set before');
    next();
  });
  app.use(headers);
  app.get('/page', (_req, res) => {
    res.send('<p>page</p>');
  });
  return app;
}

/** The response's headers without those that differ from one answer to the next. */
async function headersOf(headers: RequestHandler): Promise<Record<string, unknown>> {
  const res = await request(appWith(headers)).get('/page');
  const { date: _date, ...rest } = res.headers;
  return rest;
}

describe('the security headers middleware', () => {
  it("when a page is answered, then its headers are exactly helmet's, X-Powered-By removed", async () => {
    const ours = await headersOf(securityHeaders());
    expect(ours).toEqual(await headersOf(helmet()));
    expect(ours['content-security-policy']).toContain("default-src 'self'");
    expect(ours['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(ours['x-frame-options']).toBe('SAMEORIGIN');
    expect(ours).not.toHaveProperty('x-powered-by');
  });

  it("when helmet is given options, then the headers are helmet's with those options", async () => {
    const options = { contentSecurityPolicy: { directives: { 'frame-ancestors': ["'none'"] } }, xFrameOptions: false as const };
    const ours = await headersOf(securityHeaders(options));
    expect(ours).toEqual(await headersOf(helmet(options)));
    expect(ours['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(ours['x-frame-options']).toBe('set before');
  });

  it('when a directive is worked out per request, then the middleware is refused when it is made', () => {
    const perRequest = {
      contentSecurityPolicy: {
        directives: { 'script-src': ["'self'", (req: unknown) => `'nonce-${String((req as { id: string }).id)}'`] },
      },
    };
    expect(() => securityHeaders(perRequest)).toThrow(/helmet read the request/);
  });

  it('when the gateway is reached over http, then its pages carry no upgrade-insecure-requests; over https they do', async () => {
    for (const [base, upgrades] of [
      ['http://localhost:18680', false],
      ['https://pay.example.com', true],
    ] as const) {
      const gw = makeGateway({ name: 'security-headers-csp', env: { BASE_URL: base } });
      const front = await request(gw.app).get('/');
      expect(front.status).toBe(200);
      const csp = String(front.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp.includes('upgrade-insecure-requests')).toBe(upgrades);
      await gw.close();
    }
  });
});
