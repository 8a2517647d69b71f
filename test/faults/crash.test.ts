import { afterAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';
import { LOG_DIR } from '../support/paths.js';
import { spawnGateway } from '../support/process.js';
import { authoriseBody, testMerchants, VAULT_KEY_HEX, MERCHANT_ID, ACCOUNT_ID, SIGN_KEY } from '../support/gateway.js';
import { signBatch } from '../support/sign.js';

/**
 * The crash test (DESIGN 10): the gateway process on real Redis (appendfsync always) under authorise and batch
 * capture load is killed with SIGKILL, then started again. Every acknowledged payment must be stored, none may
 * stay pending past the recovery window, and the acquirer (the sandbox ledger) must have captured none twice.
 */
const xml = new XMLParser({ parseTagValue: false });
let redis: RedisServer | undefined;
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await redis?.stop();
});

async function healthy(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

async function startGateway(env: Record<string, string>, name: string): Promise<ChildProcess> {
  const { child, output } = spawnGateway(env, name, 4000);
  children.push(child);
  const start = Date.now();
  while (!(await healthy(`http://${env.HOST}:${env.PORT}`))) {
    if (Date.now() - start > 30_000 || child.exitCode !== null) throw new Error(`gateway did not start: ${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

describe('a gateway killed under load (SIGKILL) and started again', () => {
  it('then every acknowledged payment is stored, none stays pending after recovery, and no capture happened twice', async () => {
    redis = await startRedis('crash');
    mkdirSync(LOG_DIR, { recursive: true });
    const dir = join(tmpdir(), `gw-crash-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'merchants.json'), JSON.stringify(testMerchants()));
    const port = await freePort();
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      VAULT_KEY: VAULT_KEY_HEX,
      MERCHANTS_FILE: join(dir, 'merchants.json'),
      PENDING_RESOLVE_SECONDS: '2',
      LOG_LEVEL: 'warn',
    };
    const base = `http://127.0.0.1:${port}`;
    const first = await startGateway(env, 'crash-before');

    const acknowledged = new Map<string, string>(); // order_no -> transaction_id
    const captureAcknowledged = new Set<string>();
    const uncaptured: { transaction_id: string; order_no: string }[] = [];
    let stop = false;
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: JSON.stringify(body),
      });
    const authoriseLoop = async () => {
      while (!stop) {
        const body = authoriseBody({ items: undefined, item_total: undefined });
        try {
          const res = await post('/v1/authorise', body);
          const text = await res.text();
          if (res.status !== 200) continue;
          const doc = xml.parse(text).respon as Record<string, string>;
          if (doc.order_status === '1') {
            acknowledged.set(doc.order_no!, doc.transaction_id!);
            uncaptured.push({ transaction_id: doc.transaction_id!, order_no: doc.order_no! });
          }
        } catch {
          return; // the process is gone
        }
      }
    };
    const captureLoop = async () => {
      while (!stop) {
        const orders = uncaptured.splice(0, 50).map((o) => ({ ...o, currency: 'USD', amount: '10.00' }));
        if (orders.length === 0) {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        try {
          const res = await post(
            '/v1/capture',
            signBatch({ merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, capture_orders: orders }, 'capture_orders', SIGN_KEY),
          );
          if (res.status !== 200) continue;
          const answer = (await res.json()) as { capture_orders: { transaction_id: string; capture_status: string }[] };
          for (const o of answer.capture_orders) if (o.capture_status === '1') captureAcknowledged.add(o.transaction_id);
        } catch {
          return;
        }
      }
    };
    const loops = [...Array.from({ length: 30 }, authoriseLoop), captureLoop(), captureLoop()];
    // under load until enough payments and captures are acknowledged (a shared machine may be slow)
    const loadStart = Date.now();
    while ((acknowledged.size < 80 || captureAcknowledged.size < 20) && Date.now() - loadStart < 15_000)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 300));
    first.kill('SIGKILL');
    await once(first, 'exit');
    stop = true;
    await Promise.all(loops);
    expect(acknowledged.size).toBeGreaterThan(20);

    const second = await startGateway(env, 'crash-after');
    const client = redis.client();
    const payments = async () => {
      const keys = await client.keys(`gw:{${MERCHANT_ID}}:pay:*`);
      const rows = await Promise.all(keys.map((k) => client.hget(k, 'd')));
      return rows.map(
        (d) => JSON.parse(d!) as { transaction_id: string; order_no: string; status: string; captured: number; claim?: unknown },
      );
    };
    let stored = await payments();
    const deadline = Date.now() + 30_000;
    // recovery is done when no payment is pending and no operation is left claimed
    while (stored.some((p) => p.status === '1000' || p.claim) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      stored = await payments();
    }
    const pending = stored.filter((p) => p.status === '1000' || p.claim);
    const byOrder = new Map(stored.map((p) => [p.order_no, p]));
    const lost = [...acknowledged].filter(([orderNo, txn]) => byOrder.get(orderNo)?.transaction_id !== txn);
    const capturedButNot = [...captureAcknowledged].filter((txn) => stored.find((p) => p.transaction_id === txn)?.status !== '3100');
    // the acquirer's ledger: one capture record per captured payment, none for any other
    const markers = await client.keys('acq:*#capture');
    const captureRecords = (await client.keys('acq:*-cap')).length;
    const capturedPayments = stored.filter((p) => p.captured > 0).length;
    console.info(
      `crash test: ${acknowledged.size} payments and ${captureAcknowledged.size} captures acknowledged before SIGKILL; ` +
        `${stored.length} stored; ${pending.length} pending after recovery; ${capturedPayments} captured, ${captureRecords} capture records at the acquirer`,
    );
    expect(lost).toEqual([]);
    expect(pending).toEqual([]);
    expect(capturedButNot).toEqual([]);
    expect(captureRecords).toBe(capturedPayments);
    expect(markers.length).toBe(capturedPayments);
    second.kill('SIGTERM');
    await once(second, 'exit');
  }, 90_000);
});
