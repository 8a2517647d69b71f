import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { gatewayBody } from '../../../src/http/middleware/body.js';
import { errorHandler } from '../../../src/http/middleware/error-handler.js';

/** The body middleware on a real socket: the direct read (declared length) and express.raw (the rest). */
let server: Server;
let port: number;
beforeAll(async () => {
  const app = express();
  app.use(gatewayBody);
  app.post('/echo', (req, res) => {
    res.json(req.body);
  });
  app.use(errorHandler(pino({ level: 'silent' })));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function post(headers: Record<string, string>, chunks: (string | Buffer)[]): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/echo', headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('reading bodies', () => {
  const json = JSON.stringify({ merchant_id: '1000001', note: 'é ünïcode' });

  it('when the body has a Content-Length and arrives in pieces, then it is read whole', async () => {
    const bytes = Buffer.from(json);
    const r = await post({ 'content-length': String(bytes.length) }, [bytes.subarray(0, 7), bytes.subarray(7)]);
    expect(r).toEqual({ status: 200, body: { merchant_id: '1000001', note: 'é ünïcode' } });
  });

  it('when the body is chunked (no Content-Length), then it is read as before', async () => {
    const r = await post({ 'transfer-encoding': 'chunked' }, [json.slice(0, 5), json.slice(5)]);
    expect(r).toEqual({ status: 200, body: { merchant_id: '1000001', note: 'é ünïcode' } });
  });

  it('when the body is gzip-compressed, then it is inflated as before', async () => {
    const gz = gzipSync(json);
    const r = await post({ 'content-encoding': 'gzip', 'content-length': String(gz.length) }, [gz]);
    expect(r).toEqual({ status: 200, body: { merchant_id: '1000001', note: 'é ünïcode' } });
  });

  it('when the declared length is over the limit (16 KB for an address no call names), then it is a 413 naming the body', async () => {
    const big = JSON.stringify({ note: 'x'.repeat(100 * 1024) });
    const r = await post({ 'content-length': String(Buffer.byteLength(big)) }, [big]);
    expect(r.status).toBe(413);
    expect(JSON.stringify(r.body)).toContain('body: must be at most 16 KB');
  });
});
