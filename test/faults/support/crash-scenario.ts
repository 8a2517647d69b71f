import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import type { Redis } from 'ioredis';
import { freePort, startRedis, type RedisServer } from '../../support/redis.js';
import { LOG_DIR } from '../../support/paths.js';
import { spawnGateway } from '../../support/process.js';
import { authoriseBody, VAULT_KEY_HEX, MERCHANT_ID, ACCOUNT_ID, SIGN_KEY } from '../../support/gateway.js';
import { signBatch } from '../../support/sign.js';
import type { MerchantsFile } from '../../../src/core/records/directory.js';

/**
 * The crash scenario of docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery, shared by the crash tests (the sandbox, and each acquirer connector against
 * its stub): a gateway process on real Redis (appendfsync always) under authorise and batch capture load is
 * killed with SIGKILL once enough is acknowledged, then started again; the scenario waits until recovery has
 * left nothing pending or claimed and answers what was acknowledged and what is stored. Each test asserts on it,
 * and on its acquirer's own records.
 */
export interface CrashScenario {
  /** names the Redis server, the gateway's log files and its directory */
  name: string;
  merchants: MerchantsFile;
  /** more environment for the gateway (an acquirer's credentials, its search lag) */
  env?: Record<string, string>;
  /** authorise loops run at once */
  authoriseLoops: number;
  /** orders a capture batch takes */
  captureBatch: number;
  /** the load lasts until this many payments and captures are acknowledged, or `loadMs` passed */
  enough: { payments: number; captures: number };
  loadMs: number;
  /** how long after that the kill comes */
  killAfterMs: number;
}

export interface StoredPayment {
  transaction_id: string;
  order_no: string;
  status: string;
  captured: number;
  claim?: unknown;
}

export interface CrashOutcome {
  /** order_no -> transaction_id of every payment acknowledged approved before the kill */
  acknowledged: Map<string, string>;
  /** transaction ids whose capture was acknowledged */
  captureAcknowledged: Set<string>;
  /** the payments in the store after recovery */
  stored: StoredPayment[];
  byTransaction: Map<string, StoredPayment>;
  /** acknowledged payments the store does not have under their transaction */
  lost: [string, string][];
  /** payments pending or claimed after recovery (its deadline passed) */
  pending: StoredPayment[];
  /** captures acknowledged that the store does not show captured */
  capturedButNot: string[];
  /** the scenario's Redis, to read the sandbox acquirer's ledger */
  redis: Redis;
}

const xml = new XMLParser({ parseTagValue: false });
const children: ChildProcess[] = [];
const servers: RedisServer[] = [];

/** Ends what the scenarios started (for afterAll): gateway processes still running, their Redis servers. */
export async function stopCrashScenarios(): Promise<void> {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.stop()));
}

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runCrashScenario(s: CrashScenario): Promise<CrashOutcome> {
  const redis = await startRedis(s.name);
  servers.push(redis);
  mkdirSync(LOG_DIR, { recursive: true });
  const dir = join(tmpdir(), `gw-${s.name}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'merchants.json'), JSON.stringify(s.merchants));
  const port = await freePort();
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    REDIS_URL: redis.url,
    VAULT_KEY: VAULT_KEY_HEX,
    MERCHANTS_FILE: join(dir, 'merchants.json'),
    PENDING_RESOLVE_SECONDS: '2',
    LOG_LEVEL: 'warn',
    ...s.env,
  };
  const base = `http://127.0.0.1:${port}`;
  const first = await startGateway(env, `${s.name}-before`);

  const acknowledged = new Map<string, string>();
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
      const orders = uncaptured.splice(0, s.captureBatch).map((o) => ({ ...o, currency: 'USD', amount: '10.00' }));
      if (orders.length === 0) {
        await sleep(20);
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
  const loops = [...Array.from({ length: s.authoriseLoops }, authoriseLoop), captureLoop(), captureLoop()];
  // under load until enough payments and captures are acknowledged (a shared machine may be slow)
  const loadStart = Date.now();
  while ((acknowledged.size < s.enough.payments || captureAcknowledged.size < s.enough.captures) && Date.now() - loadStart < s.loadMs)
    await sleep(100);
  await sleep(s.killAfterMs);
  first.kill('SIGKILL');
  await once(first, 'exit');
  stop = true;
  await Promise.all(loops);

  const second = await startGateway(env, `${s.name}-after`);
  const client = redis.client();
  const payments = async (): Promise<StoredPayment[]> => {
    const keys = await client.keys(`gw:{${MERCHANT_ID}}:pay:*`);
    const rows = await Promise.all(keys.map((k) => client.hget(k, 'd')));
    return rows.map((d) => JSON.parse(d!) as StoredPayment);
  };
  let stored = await payments();
  const deadline = Date.now() + 30_000;
  // recovery is done when no payment is pending and no operation is left claimed
  while (stored.some((p) => p.status === '1000' || p.claim) && Date.now() < deadline) {
    await sleep(250);
    stored = await payments();
  }
  second.kill('SIGTERM');
  await once(second, 'exit');
  const byOrder = new Map(stored.map((p) => [p.order_no, p]));
  const byTransaction = new Map(stored.map((p) => [p.transaction_id, p]));
  return {
    acknowledged,
    captureAcknowledged,
    stored,
    byTransaction,
    lost: [...acknowledged].filter(([orderNo, txn]) => byOrder.get(orderNo)?.transaction_id !== txn),
    pending: stored.filter((p) => p.status === '1000' || p.claim),
    capturedButNot: [...captureAcknowledged].filter((txn) => byTransaction.get(txn)?.status !== '3100'),
    redis: client,
  };
}
