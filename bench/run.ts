import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { REQUEST_SIGNATURE_FIELDS, signFields, signValues } from '../src/core/kernel/signing.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, startRedis, type RedisServer } from '../test/support/redis.js';

/**
 * npm run bench: measures POST /v1/authorise (approved sandbox card, a fresh order_no per request) on a real
 * Redis with appendfsync always, and in the same run a bare Express route parsing a 2 KB JSON body, then
 * prints req/s, p50 and p99 of both and their ratio; then POST /v1/capture of 50 authorised orders per call;
 * then authorise again on a gateway with METRICS_ALLOW=off, to print what the Prometheus series cost. Absolute figures vary on shared machines; the ratio is
 * the comparable number.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CAPTURE_CONNECTIONS = Number(process.env.BENCH_CAPTURE_CONNECTIONS ?? 1);
const CAPTURE_CALLS = Number(process.env.BENCH_CAPTURE_CALLS ?? 300);
const SIGN_KEY = 'bench-sign-key-0001';
const M = '1000001';
const A = '1000001001';

function authoriseBody(): string {
  const b: Record<string, unknown> = {
    merchant_id: M,
    account_id: A,
    order_no: `B-${randomUUID()}`,
    currency: 'USD',
    amount: '25.00',
    item_total: '25.00',
    items: 'Mug#,#SKU-7#,#12.50#,#2',
    website: 'https://shop.example',
    shopper_email: 'bench@example.com',
    shopper_ip: '203.0.113.9',
    shopper_id: 'u-1',
    first_name: 'Ada',
    last_name: 'Lovelace',
    card: '4242424242424242',
    expiration_month: '12',
    expiration_year: '2034',
    security_code: '737',
    open3d: 'no3DS',
    token_flag: 'NO',
    billing_country: 'GB',
    billing_city: 'London',
    billing_address: '1 Street',
    billing_postal_code: 'N1 1AA',
    delivery_country: 'GB',
    os: 'Linux',
    browser: 'Chromium',
    browser_lang: 'en-GB',
    time_zone: '0',
    resolution: '1920x1080',
    color_depth: '24',
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) bench',
    accept: 'text/html',
    device_type: 'PC',
    order_type: 'WEB',
    checkout_time: 1763700000,
    cart_items: [
      {
        basic_item_data: {
          name: 'Mug',
          quantity: '2',
          type: 'physical',
          category: 'home',
          productId: 'SKU-7',
          price: { amount_usd: 12.5, amount_local_currency: 12.5, currency: 'USD' },
        },
      },
    ],
  };
  b.encryption_data = signFields(b, REQUEST_SIGNATURE_FIELDS.authorise, SIGN_KEY);
  return JSON.stringify(b);
}

/** Authorises `count` payments through the API and returns what a capture needs of each. */
async function authorisedOrders(url: string, count: number): Promise<{ transaction_id: string; order_no: string }[]> {
  const orders: { transaction_id: string; order_no: string }[] = [];
  const pool = bodyPool(authoriseBody, count);
  await autocannon({
    url,
    connections: 50,
    amount: count,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: pool() }),
        onResponse: (_status, body) => {
          const txn = /<transaction_id>([^<]+)</.exec(body)?.[1];
          const order = /<order_no>([^<]+)</.exec(body)?.[1];
          if (txn && order && body.includes('<order_status>1<')) orders.push({ transaction_id: txn, order_no: order });
        },
      },
    ],
  });
  return orders;
}

/** Capture bodies of 50 orders each, signed over merchant_id, account_id and every transaction_id. */
function captureBodies(orders: { transaction_id: string; order_no: string }[]): string[] {
  const bodies: string[] = [];
  for (let i = 0; i + 50 <= orders.length; i += 50) {
    const capture_orders = orders.slice(i, i + 50).map((o) => ({ ...o, currency: 'USD', amount: '25.00' }));
    const encryption_data = signValues([M, A, ...capture_orders.map((o) => o.transaction_id)], SIGN_KEY);
    bodies.push(JSON.stringify({ merchant_id: M, account_id: A, capture_orders, encryption_data }));
  }
  return bodies;
}

async function measureCapture(url: string, bodies: string[], serverPid: number): Promise<Figures> {
  let next = 0;
  let failedOrders = 0;
  const cpuBefore = cpuMicros(serverPid);
  const r = await autocannon({
    url,
    connections: CAPTURE_CONNECTIONS,
    amount: bodies.length,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        setupRequest: (req) => ({ ...req, body: bodies[next++] }),
        onResponse: (_status, body) => {
          failedOrders += (body.match(/"capture_status":"0"/g) ?? []).length;
        },
      },
    ],
  });
  if (failedOrders > 0) console.log(`capture: ${failedOrders} orders failed`);
  const cpuPerRequest = (cpuMicros(serverPid) - cpuBefore) / Math.max(1, r.requests.total);
  return {
    name: `POST /v1/capture (50 orders, ${CAPTURE_CONNECTIONS} conn.)`,
    cpuPerRequest,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + failedOrders,
    total: r.requests.total,
  };
}

function bareBody(): string {
  const filler: Record<string, string> = {};
  for (let i = 0; JSON.stringify(filler).length < 2000; i++) filler[`field_${i}`] = `value-${i}-${'x'.repeat(20)}`;
  return JSON.stringify(filler).slice(0, 2048);
}

/** Starts a server process and waits until `readyUrl` answers 200 (whatever its log level prints). */
async function startServer(args: string[], env: Record<string, string>, readyUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const collect = (d: Buffer) => {
    if (out.length < 10_000) out += d.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}): ${out}`);
    const ok = await fetch(readyUrl).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    if (Date.now() - started > 30_000) throw new Error(`server not ready at ${readyUrl}: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** CPU time (user + system) a process has used so far, in microseconds, from /proc. */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / 100;
}

interface Figures {
  name: string;
  /** server CPU per answered request: a figure that noise on a shared machine moves much less than req/s */
  cpuPerRequest: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

/**
 * Bodies are made before the clock starts (each used once), so the load generator spends the measured
 * time sending, not signing: both scenarios then cost the generator the same.
 */
function bodyPool(make: () => string, count: number): () => string {
  const pool = Array.from({ length: count }, make);
  let i = 0;
  return () => {
    if (i >= pool.length) throw new Error('body pool exhausted: raise BENCH_POOL');
    return pool[i++]!;
  };
}

async function measure(name: string, url: string, body: () => string, serverPid: number, seconds = DURATION): Promise<Figures> {
  const run = (duration: number) =>
    autocannon({
      url,
      connections: CONNECTIONS,
      duration,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          setupRequest: (req) => ({ ...req, body: body() }),
        },
      ],
    });
  await run(2); // warm-up: JIT, connection pools
  const cpuBefore = cpuMicros(serverPid);
  const r = await run(seconds);
  const cpuPerRequest = (cpuMicros(serverPid) - cpuBefore) / Math.max(1, r.requests.total);
  return {
    name,
    cpuPerRequest,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    total: r.requests.total,
  };
}

function print(rows: Figures[]): void {
  const line = (cells: (string | number)[]) => cells.map((c, i) => String(c).padStart(i === 0 ? 0 : 12)).join('');
  console.log(line(['scenario'.padEnd(34), 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'CPU µs/req']));
  for (const r of rows)
    console.log(
      line([r.name.padEnd(34), r.rps.toFixed(0), r.p50.toFixed(1), r.p99.toFixed(1), r.non2xx, r.errors, r.cpuPerRequest.toFixed(0)]),
    );
}

/** A gateway process (dist/main.js, as npm start runs it) on its own real Redis. */
async function startGateway(
  name: string,
  merchantsFile: string,
  logLevel: string,
  extraEnv: Record<string, string> = {},
): Promise<{ port: number; child: ChildProcess; redis: RedisServer }> {
  const redis = await startRedis(name);
  const port = await freePort();
  const child = await startServer(
    ['dist/main.js'],
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      VAULT_KEY: 'b'.repeat(64),
      MERCHANTS_FILE: merchantsFile,
      LOG_LEVEL: logLevel,
      ...extraEnv,
    },
    `http://127.0.0.1:${port}/readyz`,
  );
  return { port, child, redis };
}

async function main(): Promise<void> {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const merchants = join(dir, 'merchants.json');
  writeFileSync(
    merchants,
    JSON.stringify({
      merchants: [{ merchant_id: M, name: 'Bench Shop', accounts: [{ account_id: A, sign_key: SIGN_KEY, currencies: ['USD'] }] }],
    }),
  );
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info';
  const barePort = await freePort();
  const bare = await startServer(
    ['--import', 'tsx', 'bench/bare-server.ts'],
    { PORT: String(barePort) },
    `http://127.0.0.1:${barePort}/healthz`,
  );
  // each gateway scenario gets its own Redis, so one scenario's data (and the AOF rewrite it may trigger)
  // does not land in another's figures
  const first = await startGateway('bench-authorise', merchants, logLevel);
  let second: Awaited<ReturnType<typeof startGateway>> | undefined;
  let third: Awaited<ReturnType<typeof startGateway>> | undefined;
  try {
    console.log(
      `\n${CONNECTIONS} connections, ${DURATION} s per scenario after a 2 s warm-up; Redis with appendfsync always; gateway LOG_LEVEL=${logLevel}\n`,
    );
    const bare2k = bareBody();
    const baseline = await measure('bare Express, 2 KB JSON', `http://127.0.0.1:${barePort}/bare`, () => bare2k, bare.pid!);
    const pool = bodyPool(authoriseBody, Number(process.env.BENCH_POOL ?? 120_000));
    const authorise = await measure('POST /v1/authorise (approved)', `http://127.0.0.1:${first.port}/v1/authorise`, pool, first.child.pid!);
    const txns = (await first.redis.client().keys(`gw:{${M}}:pay:*`)).length;
    first.child.kill('SIGTERM');
    second = await startGateway('bench-capture', merchants, logLevel);
    const orders = await authorisedOrders(`http://127.0.0.1:${second.port}/v1/authorise`, CAPTURE_CALLS * 50);
    const capture = await measureCapture(`http://127.0.0.1:${second.port}/v1/capture`, captureBodies(orders), second.child.pid!);
    second.child.kill('SIGTERM');
    // the same authorise scenario with metrics off (METRICS_ALLOW=off): the price of the Prometheus series
    third = await startGateway('bench-no-metrics', merchants, logLevel, { METRICS_ALLOW: 'off' });
    const noMetricsPool = bodyPool(authoriseBody, Number(process.env.BENCH_POOL ?? 120_000));
    const authoriseOff = await measure(
      'POST /v1/authorise, metrics off',
      `http://127.0.0.1:${third.port}/v1/authorise`,
      noMetricsPool,
      third.child.pid!,
    );
    print([baseline, authorise, authoriseOff, capture]);
    const cost = 1 - authorise.rps / authoriseOff.rps;
    const cpuCost = authorise.cpuPerRequest / authoriseOff.cpuPerRequest - 1;
    console.log(
      `\ncost of metrics on authorise: ${(cost * 100).toFixed(1)} % of req/s, ${(cpuCost * 100).toFixed(1)} % of server CPU per request (aim < 5 %)`,
    );
    console.log(`\nauthorise / baseline req/s: ${(authorise.rps / baseline.rps).toFixed(2)}  (aim >= 0.50; p99 aim < 25 ms)`);
    console.log(`capture of 50 orders: p99 ${capture.p99.toFixed(1)} ms over ${capture.total} calls (aim < 30 ms)`);
    console.log(`transactions stored by the authorise scenario: ${txns} (answers counted in its measured window: ${authorise.total})`);
    if (authoriseOff.non2xx > 0 || authoriseOff.errors > 0) process.exitCode = 1;
    if (authorise.non2xx > 0 || authorise.errors > 0 || capture.non2xx > 0 || capture.errors > 0) process.exitCode = 1;
  } finally {
    for (const g of [first, second, third]) {
      if (!g) continue;
      g.child.kill('SIGTERM');
      await g.redis.stop();
    }
    bare.kill('SIGTERM');
  }
}

void main();
