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
import { authoriseBody, VAULT_KEY_HEX, MERCHANT_ID, ACCOUNT_ID, SIGN_KEY } from '../support/gateway.js';
import { signBatch } from '../support/sign.js';
import { StripeStub } from '../support/acquirers/stripe-stub.js';
import { STRIPE_ENV, acquirerMerchants } from '../support/acquirers/accounts.js';

/**
 * The crash test with the account on the Stripe connector (issue 38): the gateway process on real Redis, its
 * SDK talking to the Stripe stub, under authorise and batch capture load, is killed with SIGKILL and started
 * again. Every acknowledged payment is kept, none stays pending after recovery, and the stub's own records show
 * no payment charged or captured twice, and every capture Stripe made recorded by the gateway.
 */
const xml = new XMLParser({ parseTagValue: false });
let redis: RedisServer | undefined;
const stripe = new StripeStub();
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await redis?.stop();
  await stripe.stop();
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

describe('a gateway on the Stripe connector killed under load (SIGKILL) and started again', () => {
  it('then every acknowledged payment is kept, none stays pending, and Stripe charged and captured each at most once', async () => {
    await stripe.start();
    redis = await startRedis('crash-stripe');
    mkdirSync(LOG_DIR, { recursive: true });
    const dir = join(tmpdir(), `gw-crash-stripe-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'merchants.json'), JSON.stringify(acquirerMerchants('stripe', stripe.baseUrl)));
    const port = await freePort();
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      VAULT_KEY: VAULT_KEY_HEX,
      MERCHANTS_FILE: join(dir, 'merchants.json'),
      PENDING_RESOLVE_SECONDS: '2',
      // the stub's search shows an intent at once (Stripe's trails by about a minute)
      STRIPE_SEARCH_LAG_SECONDS: '0',
      LOG_LEVEL: 'warn',
      ...STRIPE_ENV,
    };
    const base = `http://127.0.0.1:${port}`;
    const first = await startGateway(env, 'crash-stripe-before');

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
        try {
          const res = await post('/v1/authorise', authoriseBody({ items: undefined, item_total: undefined }));
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
        const orders = uncaptured.splice(0, 30).map((o) => ({ ...o, currency: 'USD', amount: '10.00' }));
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
    const loops = [...Array.from({ length: 20 }, authoriseLoop), captureLoop(), captureLoop()];
    const loadStart = Date.now();
    while ((acknowledged.size < 60 || captureAcknowledged.size < 15) && Date.now() - loadStart < 12_000)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 200));
    first.kill('SIGKILL');
    await once(first, 'exit');
    stop = true;
    await Promise.all(loops);
    expect(acknowledged.size).toBeGreaterThan(10);

    const second = await startGateway(env, 'crash-stripe-after');
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
    while (stored.some((p) => p.status === '1000' || p.claim) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      stored = await payments();
    }
    const pending = stored.filter((p) => p.status === '1000' || p.claim);
    const byOrder = new Map(stored.map((p) => [p.order_no, p]));
    const byTxn = new Map(stored.map((p) => [p.transaction_id, p]));
    const lost = [...acknowledged].filter(([orderNo, txn]) => byOrder.get(orderNo)?.transaction_id !== txn);
    const capturedButNot = [...captureAcknowledged].filter((txn) => byTxn.get(txn)?.status !== '3100');
    // Stripe's side, from the stub's own records
    const intentsPerReference = new Map<string, number>();
    for (const pi of stripe.intents.values()) {
      const ref = pi.metadata.gateway_reference!;
      intentsPerReference.set(ref, (intentsPerReference.get(ref) ?? 0) + 1);
    }
    const chargedTwice = [...intentsPerReference].filter(([, n]) => n > 1);
    const capturesPerIntent = new Map<string, number>();
    for (const [id] of stripe.captures) capturesPerIntent.set(id, (capturesPerIntent.get(id) ?? 0) + 1);
    const capturedTwice = [...capturesPerIntent].filter(([, n]) => n > 1);
    const capturedAtStripe = [...stripe.intents.values()]
      .filter((pi) => pi.status === 'succeeded')
      .map((pi) => pi.metadata.gateway_reference!);
    const capturedNotRecorded = capturedAtStripe.filter((txn) => byTxn.get(txn)?.status !== '3100');
    const recordedNotCaptured = stored.filter((p) => p.captured > 0 && stripe.intentFor(p.transaction_id)?.status !== 'succeeded');
    console.info(
      `crash test (Stripe): ${acknowledged.size} payments and ${captureAcknowledged.size} captures acknowledged before SIGKILL; ` +
        `${stored.length} stored; ${pending.length} pending after recovery; ${stripe.intents.size} intents and ${stripe.captures.length} captures at the stub`,
    );
    expect(lost).toEqual([]);
    expect(pending).toEqual([]);
    expect(capturedButNot).toEqual([]);
    expect(chargedTwice).toEqual([]);
    expect(capturedTwice).toEqual([]);
    expect(capturedNotRecorded).toEqual([]);
    expect(recordedNotCaptured.map((p) => p.transaction_id)).toEqual([]);
    second.kill('SIGTERM');
    await once(second, 'exit');
  }, 90_000);
});
