import type { ChildProcess } from 'node:child_process';
import { XMLParser } from 'fast-xml-parser';
import { freePort } from '../support/redis.js';
import { spawnGateway } from '../support/process.js';
import { VAULT_KEY_HEX, authoriseBody, testOrder } from '../support/gateway.js';
import { FIELDS, signBatch, signBody } from '../support/sign.js';

export const OPERATOR = 'ops-1';
export const OPERATOR_SECRET = 'operator-secret-0123456789-abcdefghij';
export const OPERATOR_KEYS = `${OPERATOR}:${OPERATOR_SECRET}`;

export interface Proc {
  base: string;
  child: ChildProcess;
  output(): string;
}

async function healthy(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

/** A real gateway process on the given Redis and merchants file, with the operators' API on. */
export async function startProcess(
  name: string,
  redisUrl: string,
  merchantsFile: string,
  extra: Record<string, string> = {},
): Promise<Proc> {
  const port = await freePort();
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    REDIS_URL: redisUrl,
    VAULT_KEY: VAULT_KEY_HEX,
    MERCHANTS_FILE: merchantsFile,
    OPERATOR_KEYS,
    NOTIFY_ALLOW_PRIVATE: '1',
    LOG_LEVEL: 'warn',
    ...extra,
  };
  const { child, output } = spawnGateway(env, name, 20_000);
  const base = `http://127.0.0.1:${port}`;
  const start = Date.now();
  while (!(await healthy(base))) {
    if (Date.now() - start > 30_000 || child.exitCode !== null) throw new Error(`gateway did not start: ${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { base, child, output };
}

export async function stopProcess(p: Proc): Promise<void> {
  if (p.child.exitCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await exited;
}

/** An operators' call; answers status and JSON body. */
export async function admin(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  /** null: no Authorization header */
  secret: string | null = OPERATOR_SECRET,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret !== null) headers.authorization = `Bearer ${secret}`;
  const res = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const xml = new XMLParser({ parseTagValue: false });

/** A sandbox authorisation of the approved test card; answers the status and, when 200, the transaction id. */
export async function authorise(
  base: string,
  merchantId: string,
  accountId: string,
  key: string,
  extra: Record<string, unknown> = {},
): Promise<{ status: number; code?: string; order?: Record<string, string> }> {
  const body = authoriseBody({ merchant_id: merchantId, account_id: accountId, items: undefined, item_total: undefined, ...extra }, key);
  const res = await fetch(`${base}/v1/authorise`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) {
    let code: string | undefined;
    try {
      code = (JSON.parse(text) as { code?: string }).code;
    } catch {
      code = (xml.parse(text) as { respon?: { code?: string } }).respon?.code;
    }
    return { status: res.status, ...(code ? { code } : {}) };
  }
  const doc = text.startsWith('{') ? (JSON.parse(text) as Record<string, string>) : (xml.parse(text).respon as Record<string, string>);
  return {
    status: 200,
    order: { transaction_id: doc.transaction_id!, order_no: doc.order_no!, currency: doc.currency!, amount: doc.amount! },
  };
}

/** A /v1/checkout call (JSON answer); answers the status and code. */
export async function checkout(
  base: string,
  merchantId: string,
  accountId: string,
  key: string,
): Promise<{ status: number; code?: string }> {
  const body = signBody(
    {
      ...testOrder('CO'),
      merchant_id: merchantId,
      account_id: accountId,
      return_url: 'https://shop.example/back',
      items: undefined,
      item_total: undefined,
    },
    FIELDS.checkout,
    key,
  );
  for (const k of Object.keys(body)) if ((body as Record<string, unknown>)[k] === undefined) delete (body as Record<string, unknown>)[k];
  const res = await fetch(`${base}/v1/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json().catch(() => ({}))) as { code?: string };
  return { status: res.status, ...(answer.code ? { code: answer.code } : {}) };
}

/** A capture of one payment (its full amount): answers its capture_status ('1': captured) or the HTTP status. */
export async function capture(
  base: string,
  merchantId: string,
  accountId: string,
  key: string,
  order: Record<string, string>,
): Promise<string> {
  const body = signBatch({ merchant_id: merchantId, account_id: accountId, capture_orders: [order] }, 'capture_orders', key);
  const res = await fetch(`${base}/v1/capture`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { capture_orders?: { capture_status?: string }[] };
  return res.status === 200 ? String(answer.capture_orders?.[0]?.capture_status) : `HTTP ${res.status}`;
}

/** Polls until `check` holds; answers the milliseconds it took (throws past the limit). */
export async function within(limitMs: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
