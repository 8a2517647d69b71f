import { describe, expect, it } from 'vitest';
import express from 'express';
import request from 'supertest';
import { errorHandler } from '../../../src/http/middleware/error-handler.js';
import { GatewayError } from '../../../src/core/kernel/errors.js';

/** An app whose routes fail as a store outage would, with every log line kept. */
function failingApp() {
  const lines: object[] = [];
  const keep = (obj: object) => void lines.push(obj);
  const app = express();
  app.get('/v1/3ds/:merchantId/:transactionId/:secret', () => {
    throw new GatewayError('STORE_UNAVAILABLE', 'could not read the payment; try again');
  });
  app.use(errorHandler({ info: keep, warn: keep, error: keep, debug: keep }));
  return { app, lines };
}

describe('when a request on a 3-D Secure challenge address fails on the server', () => {
  it('then the error log names the path without the challenge secret', async () => {
    const { app, lines } = failingApp();
    const res = await request(app).get('/v1/3ds/1000001/2026112100000001ABCDEF/S3cr3tChallengeValue0001');
    expect(res.status).toBe(503);
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(lines)).not.toContain('S3cr3tChallengeValue0001');
    expect((lines[0] as { path: string }).path).toBe('/v1/3ds/1000001/2026112100000001ABCDEF/[secret]');
  });
});

describe('when an address carries a percent-escape that does not decode', () => {
  it('then the answer is 404 naming no such endpoint, never a 500, and nothing is logged as a failure', async () => {
    const { app, lines } = failingApp();
    const res = await request(app).get('/v1/3ds/1000001/%E0/S3cr3tChallengeValue0001');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    expect(res.text).not.toContain('S3cr3tChallengeValue0001');
    expect(lines).toEqual([]);
  });
});
