import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpNotificationTransport as transport } from '../../src/outbound/http-transport.js';
import { DELIVERY_TIMEOUT_MS } from '../../src/core/notifications/delivery.js';

let answering: Server;
let silent: Server;
const portOf = (s: Server) => (s.address() as AddressInfo).port;
const listen = (s: Server) => new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));

beforeAll(async () => {
  answering = createServer((_req, res) => {
    res.writeHead(204);
    res.end();
  });
  silent = createServer(() => undefined);
  await Promise.all([listen(answering), listen(silent)]);
});
afterAll(() => {
  for (const s of [answering, silent]) {
    s.closeAllConnections();
    s.close();
  }
});

const post = { body: 'notify_id=ntf_1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, timeoutMs: 2_000 };

describe('when the notification transport sends to a host name', () => {
  it('then a name resolving to loopback is dialled only when private targets are allowed', async () => {
    const url = `http://localhost:${portOf(answering)}/notify`;
    expect(await transport.post({ ...post, url, allowPrivate: true })).toEqual({ ok: true, status: 204 });
    const refused = await transport.post({ ...post, url, allowPrivate: false });
    expect(refused).toMatchObject({ ok: false, error: expect.stringContaining('refused address') });
  });
});

describe('when the receiver does not answer in time', () => {
  it('then the attempt fails after the timeout (10 s in production, shortened here)', async () => {
    expect(DELIVERY_TIMEOUT_MS).toBe(10_000);
    const started = Date.now();
    const result = await transport.post({ ...post, timeoutMs: 300, url: `http://127.0.0.1:${portOf(silent)}/notify`, allowPrivate: true });
    expect(result).toEqual({ ok: false, error: 'no answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
