import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { createGatewayServer } from '../../src/http/server.js';
import { loadConfig } from '../../src/config.js';
import { makeGateway } from '../support/gateway.js';

const clock = new ManualClock();
const servers: Server[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
  for (const c of closers.splice(0)) await c();
});

/** A gateway on the in-memory store, listening on a loopback port with the configured server limits. */
async function listen(env: Record<string, string>): Promise<number> {
  const gw = makeGateway({ name: 'server-limits', clock, env });
  closers.push(gw.close);
  const server = createGatewayServer(gw.app, gw.config.serverLimits);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Opens a socket, writes `text`, and resolves with what came back and how long the server kept it open. */
function hold(port: number, text: string): Promise<{ answer: string; ms: number; socket: Socket }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ answer, ms: Date.now() - started, socket }));
  });
}

const LIMITS = { HEADERS_TIMEOUT_MS: '300', REQUEST_TIMEOUT_MS: '600', MAX_CONNECTIONS: '3' };

describe('when a client is slow (finding 8)', () => {
  it('then a client that never finishes its headers is answered 408 and dropped at the headers timeout', async () => {
    const port = await listen(LIMITS);
    const { answer, ms } = await hold(port, 'POST /v1/authorise HTTP/1.1\r\nHost: gateway.test\r\nX-Slow: 1');
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(3_000);
  });

  it('then a client that never finishes its body is dropped at the request timeout', async () => {
    const port = await listen(LIMITS);
    const head = 'POST /v1/authorise HTTP/1.1\r\nHost: gateway.test\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"a":';
    const { ms } = await hold(port, head);
    expect(ms).toBeGreaterThanOrEqual(500);
    expect(ms).toBeLessThan(4_000);
  });

  it('then connections beyond MAX_CONNECTIONS are closed at once, and the others are still served', async () => {
    const port = await listen({ ...LIMITS, HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '5000' });
    const open: Socket[] = [];
    for (let i = 0; i < 3; i++) {
      const s = connect(port, '127.0.0.1');
      s.on('error', () => undefined);
      await new Promise((resolve) => s.once('connect', resolve));
      open.push(s);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    const extra = await hold(port, 'GET /healthz HTTP/1.1\r\nHost: gateway.test\r\n\r\n');
    expect(extra.answer).toBe('');
    expect(extra.ms).toBeLessThan(1_000);
    open[0]!.write('GET /healthz HTTP/1.1\r\nHost: gateway.test\r\nConnection: close\r\n\r\n');
    const served = await new Promise<string>((resolve) => {
      let text = '';
      open[0]!.on('data', (d) => (text += d.toString()));
      open[0]!.on('close', () => resolve(text));
    });
    expect(served).toMatch(/^HTTP\/1\.1 200/);
    for (const s of open) s.destroy();
  });
});

describe('when the server limits are configured', () => {
  it('then the defaults are 10 s for headers, 30 s for the request and 1024 connections', () => {
    const c = loadConfig({});
    expect(c.serverLimits).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 1024 });
  });

  it('then a headers timeout longer than the request timeout stops the start', () => {
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '40000' })).toThrow(/HEADERS_TIMEOUT_MS/);
  });
});
