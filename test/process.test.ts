import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import supertest from 'supertest';
import { freePort, startRedis } from './support/redis.js';
import { LOG_DIR, ROOT } from './support/paths.js';
import { authoriseBody, makeGateway } from './support/gateway.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

/** Starts the gateway as `npm start` would (main.ts), with its output kept for assertions and the scan. */
async function startGateway(env: Record<string, string>, name: string): Promise<{ child: ChildProcess; output: () => string }> {
  let out = '';
  const log = createWriteStream(join(LOG_DIR, `${name}.log`));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  for (const s of [child.stdout!, child.stderr!]) {
    s.on('data', (d: Buffer) => {
      out += d.toString();
      log.write(d);
    });
  }
  return { child, output: () => out };
}

async function waitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the gateway process', () => {
  it('when started with nothing configured, then it runs on the embedded store and prints the demo merchant', async () => {
    const port = await freePort();
    const { child, output } = await startGateway({ PORT: String(port), HOST: '127.0.0.1' }, 'process-demo');
    await waitFor(() => output().includes('gateway listening'));
    expect(output()).toContain('merchant_id: 1000001');
    expect(output()).toContain('account_id:  1000001001');
    expect(output()).toMatch(/sign_key: +\S+/);
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(res.status).toBe(200);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('when started twice with nothing configured, then both starts print the same demo portal password, kept in a private file', async () => {
    const passwords: string[] = [];
    for (const run of [1, 2]) {
      const port = await freePort();
      const { child, output } = await startGateway({ PORT: String(port), HOST: '127.0.0.1' }, `process-demo-password-${run}`);
      await waitFor(() => output().includes('gateway listening'));
      passwords.push(/with password (\S+)/.exec(output())![1]!);
      expect(output()).toContain(`(kept in ${join(ROOT, '.demo-portal-password')}; delete that file for a new one)`);
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    expect(passwords[1]).toBe(passwords[0]);
    expect(statSync(join(ROOT, '.demo-portal-password')).mode & 0o777).toBe(0o600);
  });

  it('when a setting is bad, then the start stops with a message naming it', async () => {
    const { child, output } = await startGateway({ PORT: 'not-a-port' }, 'process-badconfig');
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(output()).toContain('configuration error: PORT');
  });

  it('when TRUST_PROXY lists something that is not an address, or the port is taken, then the start stops naming the setting', async () => {
    const proxy = await startGateway({ TRUST_PROXY: 'garbage' }, 'process-bad-trust-proxy');
    expect((await once(proxy.child, 'exit'))[0]).toBe(2);
    expect(proxy.output()).toContain('configuration error: TRUST_PROXY: invalid IP address: garbage');
    const taken = await freePort();
    const holder = (await import('node:net')).createServer().listen(taken, '127.0.0.1');
    await once(holder, 'listening');
    try {
      const busy = await startGateway({ PORT: String(taken), HOST: '127.0.0.1' }, 'process-port-taken');
      expect((await once(busy.child, 'exit'))[0]).toBe(2);
      expect(busy.output()).toContain(`configuration error: PORT: port ${taken} on 127.0.0.1 is already in use`);
    } finally {
      holder.close();
    }
  });

  it('when the merchants file routes an account to an unknown connector, then the start stops with exit code 2 naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-process-'));
    const file = join(dir, 'merchants.json');
    const account = { account_id: '1000002001', sign_key: 'longenough', routing: { connector_code: 'acme-bank' } };
    writeFileSync(file, JSON.stringify({ merchants: [{ merchant_id: '1000002', name: 'Shop', accounts: [account] }] }));
    const { child, output } = await startGateway({ MERCHANTS_FILE: file }, 'process-unknown-connector');
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(output()).toContain('configuration error: MERCHANTS_FILE: account 1000002/1000002001: routing.connector_code "acme-bank"');
  });

  it('when SIGTERM arrives during a request, then that request is answered before the process exits', async () => {
    const port = await freePort();
    const { child, output } = await startGateway({ PORT: String(port), HOST: '127.0.0.1' }, 'process-shutdown');
    await waitFor(() => output().includes('gateway listening'));
    const signKey = /sign_key: +(\S+)/.exec(output())![1]!;
    const body = JSON.stringify(authoriseBody({ merchant_id: '1000001', account_id: '1000001001' }, signKey));
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/authorise',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      // half the body now: the request is in flight when the signal comes
      req.write(body.slice(0, 100));
      setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(100)), 300);
      }, 200);
    });
    const { status, text } = await answer;
    expect(status).toBe(200);
    expect(text).toContain('<order_status>1</order_status>');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(output()).toContain('shutting down');
  });
});

describe('readiness', () => {
  it('when Redis stops answering, then /readyz is 503 while /healthz stays 200', async () => {
    const redis = await startRedis('readiness');
    const gw = makeGateway({ name: 'readiness', redisUrl: redis.url });
    expect((await supertest(gw.app).get('/readyz')).status).toBe(200);
    await redis.stop();
    const res = await supertest(gw.app).get('/readyz');
    expect(res.status).toBe(503);
    expect((await supertest(gw.app).get('/healthz')).status).toBe(200);
    const pay = await supertest(gw.app).post('/v1/authorise').send(JSON.stringify(authoriseBody()));
    expect(pay.status).toBe(503);
    // an XML client reads the refusal as a respon document (docs/api.md#bodies)
    expect(pay.headers['content-type']).toMatch(/^application\/xml/);
    expect(pay.text).toContain('<order_status>0</order_status>');
    expect(pay.text).toMatch(/<result_info>STORE_UNAVAILABLE:/);
    await gw.close();
  });
});
