import { describe, expect, it } from 'vitest';

/** The outcome of a command that must fail: its exit code and output. */
type Failed = { code: number; stdout: string; stderr: string };
const failure = async (p: Promise<unknown>): Promise<Failed> => {
  const r = await p.then(
    () => undefined,
    (e: Failed) => e,
  );
  if (!r) throw new Error('the command succeeded');
  return r;
};
import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { redisWorld } from '../../../test/support/redis-world.js';
import { ACCOUNT_FLAGS, CLI, builtCli, cleanupAfterEach, run } from './support/cli.js';
import { MERCHANT_ID, type TestGateway } from '../../../test/support/gateway.js';
import { NotificationReceiver } from '../../../test/support/receiver.js';
import { authorise, jobOf } from '../../../test/support/jobs.js';

const world = redisWorld('sdk-cli');
const cleanup = cleanupAfterEach();
builtCli(false);

async function listeningGateway(name: string): Promise<{ gw: TestGateway; url: string }> {
  // the X-Signature timestamp comes from this clock: near real time, so the listener's replay window holds
  const gw = world.gateway(name, new ManualClock(Date.now()));
  const server = await new Promise<Server>((resolve) => {
    const s = gw.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  cleanup.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { gw, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Starts `gateway-sdk listen` and waits for its address; its stdout lines are collected. */
async function startListener(args: string[]): Promise<{ url: string; lines: Record<string, unknown>[]; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'listen', '--port', '0', ...ACCOUNT_FLAGS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  cleanup.push(() => {
    child.kill('SIGTERM');
  });
  const lines: Record<string, unknown>[] = [];
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    const parts = out.split('\n');
    out = parts.pop()!;
    for (const p of parts) if (p.trim()) lines.push(JSON.parse(p) as Record<string, unknown>);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/[\d.]+:\d+\/)/.exec(err);
      if (m) resolve(`${m[1]}notify`);
    });
    child.once('exit', (code) => reject(new Error(`listen exited ${code}: ${err}`)));
  });
  return { url, lines, child };
}

async function until<T>(read: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = read();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('gateway-sdk listen', () => {
  it('when the gateway delivers a notification, then listen prints it verified and forwards the same body and signature', async () => {
    const { gw } = await listeningGateway('cli-listen');
    const shop = await new NotificationReceiver([200]).start();
    world.receivers.push(shop);
    const listener = await startListener(['--forward', shop.url]);

    const paid = await authorise(gw, { notify_url: listener.url });
    await jobOf(gw, 'notification-delivery').runOnce();
    const line = await until(() => listener.lines[0], 'the printed notification');
    expect(line).toMatchObject({
      notify_type: 'payment',
      order_no: paid.order_no,
      verified: true,
      forwarded: { url: shop.url, status: 200 },
      fields: { transaction_id: paid.transaction_id, order_status: '1' },
    });
    expect(shop.received).toHaveLength(1);
    expect(shop.received[0]!.fields.notify_id).toBe(line.notify_id);
    expect(shop.received[0]!.headers['x-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    // the gateway saw the shop's answer through the listener: delivered, nothing pending
    const rec = await gw.deps.store.getOutbox(MERCHANT_ID, String(line.notify_id));
    expect(rec?.status).toBe('delivered');
  });

  it('when a forged notification arrives, then listen prints why it failed and answers 400', async () => {
    const listener = await startListener([]);
    const res = await fetch(listener.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'a'.repeat(64)}`,
      },
      body: 'notify_type=payment&notify_id=N-1&order_no=O-1&encryption_data=' + 'b'.repeat(64),
    });
    expect(res.status).toBe(400);
    const line = await until(() => listener.lines[0], 'the printed notification');
    expect(line).toMatchObject({ verified: false, notify_id: 'N-1', reason: expect.stringMatching(/X-Signature v1 does not match/) });
  });
});

describe('gateway-sdk call, sign and verify', () => {
  it('when a call is made from the command line, then it prints the answer and checks its signature', async () => {
    const { url } = await listeningGateway('cli-call');
    const body = JSON.stringify({ request_id: randomUUID(), currency: 'USD', amount: '12.00', billing_country: 'GB' });
    const { stdout, stderr } = await run(process.execPath, [CLI, 'call', 'optimise', body, '--url', url, ...ACCOUNT_FLAGS]);
    expect(JSON.parse(stdout)).toMatchObject({ return_status: '1', payment_methods: [{ pm_id: 'card' }] });
    expect(stderr).toContain('answer signature: ok');

    const refused = await failure(run(process.execPath, [CLI, 'call', 'capture', '{"capture_orders":[]}', '--url', url, ...ACCOUNT_FLAGS]));
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ status: 400, field: 'capture_orders' });
  });

  it('when the gateway is not there, then the CLI names the address it tried and the setting that moves it', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const body = JSON.stringify({ request_id: randomUUID(), currency: 'USD', amount: '12.00', billing_country: 'GB' });
    const failed = await failure(
      run(process.execPath, [CLI, 'call', 'optimise', body, '--url', `http://127.0.0.1:${closed}`, ...ACCOUNT_FLAGS]),
    );
    expect(failed.code).toBe(2);
    expect(failed.stderr.trim()).toBe(
      `gateway-sdk: cannot reach the gateway at http://127.0.0.1:${closed} (connection refused); start it, or set GATEWAY_URL or --url to where it runs`,
    );
  });

  it('when a body is signed and an answer verified, then sign prints encryption_data and verify says why a change fails', async () => {
    const signed = await run(process.execPath, [CLI, 'sign', '/v1/retrievalTrans', '{}', ...ACCOUNT_FLAGS]);
    expect(JSON.parse(signed.stdout)).toMatchObject({ merchant_id: MERCHANT_ID, encryption_data: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // the retrieval request signs merchant_id, account_id; an answer adds return_status, here absent (''): same values
    const answer = JSON.parse(signed.stdout) as Record<string, unknown>;
    const ok = await run(process.execPath, [CLI, 'verify', 'answer', 'capture', JSON.stringify(answer), ...ACCOUNT_FLAGS]);
    expect(ok.stdout).toContain('signature: ok');
    const changed = JSON.stringify({ ...answer, return_status: '1' });
    const failed = await failure(run(process.execPath, [CLI, 'verify', 'answer', 'capture', changed, ...ACCOUNT_FLAGS]));
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/signature: FAILED: encryption_data does not match SHA-256 of merchant_id, account_id, return_status/);
    const usage = await failure(run(process.execPath, [CLI, 'call', 'nope', '{}']));
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/unknown endpoint nope/);
  });
});
