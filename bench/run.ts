import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startRedisCluster, type RedisCluster, type RedisServer } from '../test/support/redis.js';
import { A, M, SIGN_KEY, authorisedOrders, authoriseBody, bareBody, captureBodies, checkoutBody } from './bodies.js';
import {
  CONNECTIONS,
  DURATION,
  REWARM,
  ROOT,
  WARMUP,
  bodiesMadeLate,
  bodyPool,
  measure,
  print,
  removeStoreFiles,
  startGateway,
  stopChild,
  startServer,
  type Figures,
  type Load,
  type Gateway,
  type GatewayOptions,
} from './lib.js';
import { printAllocations, printProfiles, printRedisCommands, redisCommandCosts, type RedisCommandCost } from './profile.js';
import { inEpochs as inEpochsOf, type Epoch, type Scenario } from './rounds.js';
import { soak } from './soak.js';

/**
 * npm run bench: in one run, against the same bare Express baseline (a route parsing a 2 KB JSON body),
 * POST /v1/authorise (approved sandbox card, a fresh order_no per request) on a real Redis with appendfsync
 * always, the checkout loading page, the hosted card page, captures of 50 orders at 1 and at 8 connections,
 * authorise with WORKERS=2 against 1 worker, authorise with METRICS_ALLOW=off against on (the metrics' cost), and
 * a short soak. The baseline and the three gateway scenarios it is compared with run in rounds, side by side
 * (inRounds), as do the two comparisons, each in epochs of processes started afresh (inEpochs). Absolute
 * figures vary on shared machines; ratios are comparable.
 *
 *   npm run bench -- --profile   baseline, authorise and the loading page only, each gateway under the V8
 *                                profiler: top functions and packages by self time
 *   npm run bench -- --alloc     the same scenarios, each gateway under V8's sampling heap profiler: bytes
 *                                allocated a request, by function and by the nearest function of ours
 *   npm run bench -- --soak      the soak alone, BENCH_SOAK payments (default 100000)
 *   npm run bench -- --authorise baseline and authorise only (a quick check of one change)
 *   npm run bench -- --capture   the two capture scenarios alone, with each one's slowest calls and Redis's
 *                                commands per call at 8 connections (with --profile: each run's CPU
 *                                profile; with --alloc: the gateway's allocations over its life)
 *   npm run bench -- --cluster   authorise on a Redis Cluster (3 primaries, one replica each), commits confirmed
 *                                by the replica against confirmation off (REDIS_MIN_REPLICAS=0), alternating
 *                                rounds: the cost of confirmation (also in the full run)
 *   BENCH_COMPARE=<dir>          also authorise (or, with BENCH_COMPARE_SCENARIO=checkout, the loading page)
 *                                against another checkout of the gateway (built: its
 *                                dist/main.js runs), measured in the same run: a before-and-after table
 */
const CAPTURE_CALLS = Number(process.env.BENCH_CAPTURE_CALLS ?? 100);
const POOL = Number(process.env.BENCH_POOL ?? 150_000);
/** rounds of half of BENCH_SECONDS per scenario in each epoch (inRounds) */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const args = new Set(process.argv.slice(2));
/**
 * Compared processes are started afresh for each of BENCH_EPOCHS epochs (inEpochs). A process keeps its
 * own speed for its life (what V8 compiled, where its memory and code landed): on this 2-core machine two
 * gateways of the same build differed by 10 % and more, round after round, and one setting came out 11 %
 * cheaper with one pair of processes and 21 % dearer with the next. Profiles are per process, so --profile
 * and --alloc run one epoch.
 */
const EPOCHS = args.has('--profile') || args.has('--alloc') ? 1 : Number(process.env.BENCH_EPOCHS ?? 2);

/** inEpochs (bench/rounds.ts) with this run's epochs, rounds and times. */
function inEpochs(start: (epoch: number) => Promise<Epoch>): ReturnType<typeof inEpochsOf> {
  return inEpochsOf(start, { epochs: EPOCHS, rounds: ROUNDS, seconds: Math.max(2, DURATION / 2), warmup: WARMUP, rewarm: REWARM });
}

/** Capture calls made one by one before the first capture scenario is measured: the path's JIT warm-up. */
const CAPTURE_WARM_CALLS = 10;

/**
 * 50-order captures at `connections`, each order authorised through the API first. The other scenarios run
 * 2 s before they are measured; a fixed number of calls has no such warm-up, so with `warm` the first
 * CAPTURE_WARM_CALLS captures after the gateway's start are made (and timed) before the measured ones.
 */
async function captureScenario(
  gw: Gateway,
  connections: number,
  warm = false,
  /** run once the orders are authorised, before the captures (the Redis statistics reset) */
  before?: () => Promise<unknown>,
): Promise<Figures & { coldMs?: number[] }> {
  const orders = await authorisedOrders(`${gw.url}/v1/authorise`, (CAPTURE_CALLS + (warm ? CAPTURE_WARM_CALLS : 0)) * 50);
  const bodies = captureBodies(orders);
  await before?.();
  const coldMs: number[] = [];
  for (const body of warm ? bodies.splice(0, CAPTURE_WARM_CALLS) : []) {
    const started = performance.now();
    const res = await fetch(`${gw.url}/v1/capture`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await res.text();
    if (!res.ok || text.includes('"capture_status":"0"')) throw new Error(`capture warm-up failed: ${res.status} ${text.slice(0, 300)}`);
    coldMs.push(performance.now() - started);
  }
  let next = 0;
  let failedOrders = 0;
  const f = await measure(
    `POST /v1/capture (50 orders, ${connections} conn.)`,
    `${gw.url}/v1/capture`,
    {
      body: () => bodies[next++]!,
      connections,
      amount: bodies.length,
      onResponse: (_s, body) => (failedOrders += (body.match(/"capture_status":"0"/g) ?? []).length),
    },
    gw.child.pid!,
    DURATION,
    gw.redis.pid,
  );
  if (failedOrders > 0) console.log(`capture: ${failedOrders} orders failed`);
  return { ...f, errors: f.errors + failedOrders, ...(warm ? { coldMs } : {}) };
}

/** The `n` slowest of `latencies`, in ms, slowest first. */
function slowest(latencies: Float64Array, n: number): string {
  return Array.from(latencies.slice().sort().reverse().slice(0, n), (ms) => ms.toFixed(1)).join(', ');
}

/** The hosted card page of one open session (GET does not change it, so one session serves every request). */
async function cardPagePath(gw: Gateway): Promise<string> {
  const res = await fetch(`${gw.url}/v1/checkout`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: checkoutBody(),
  });
  const answer = (await res.json()) as { checkout_url?: string };
  if (!answer.checkout_url) throw new Error(`no checkout session for the card page: ${res.status} ${JSON.stringify(answer)}`);
  return new URL(answer.checkout_url).pathname;
}

/** A request on `gw` as a scenario of `inRounds`, with the gateway's CPU and its Redis's. */
function scenarioOn(gw: Gateway, name: string, path: string, load: Omit<Load, 'warmup'>): Scenario {
  return { name, run: (seconds, warmup) => measure('', `${gw.url}${path}`, { ...load, warmup }, gw.child.pid!, seconds, gw.redis.pid) };
}

/** POST /v1/authorise on `gw` (approved sandbox card, a fresh order_no per request), with bodies of its own. */
function authoriseOn(gw: Gateway, name: string): Scenario {
  return scenarioOn(gw, name, '/v1/authorise', { body: bodyPool(authoriseBody, POOL) });
}

/** The checkout loading page on `gw` (a fresh signed order per request, the page asked for as HTML). */
function loadingPageOn(gw: Gateway, name: string): Scenario {
  return scenarioOn(gw, name, '/v1/checkout', { body: bodyPool(checkoutBody, POOL), accept: 'text/html' });
}

/**
 * One scenario (authorise unless told) on two gateways in alternating rounds (inRounds), in EPOCHS epochs,
 * each with both gateways started afresh (`a` and `b` start them) and stopped after it: rows and each round's
 * ratio b / a. `beforeStop` runs after the last epoch's rounds, while its gateways still run.
 */
async function pairOf(
  a: [() => Promise<Gateway>, string],
  b: [() => Promise<Gateway>, string],
  on: (gw: Gateway, name: string) => Scenario = authoriseOn,
  beforeStop?: (a: Gateway, b: Gateway) => Promise<void>,
): Promise<{ rows: [Figures, Figures]; ratios: string; last: [Gateway, Gateway] }> {
  let last: [Gateway, Gateway] | undefined;
  const pair = await inEpochs(async (epoch) => {
    const gws: [Gateway, Gateway] = [await a[0](), await b[0]()];
    return {
      scenarios: [on(gws[0], a[1]), on(gws[1], b[1])],
      stop: async () => {
        if (epoch === EPOCHS - 1) {
          last = gws;
          await beforeStop?.(...gws);
        }
        await gws[0].stop();
        await gws[1].stop();
      },
    };
  });
  return { rows: pair.rows as [Figures, Figures], ratios: pair.ratios[1]!, last: last! };
}

/** The server of a Redis Cluster that is the primary of merchant `m`'s slot. */
async function primaryOf(cluster: RedisCluster, m: string): Promise<RedisServer> {
  const probe = cluster.nodes[0]!.client();
  const slot = Number(await probe.cluster('KEYSLOT', `{${m}}`));
  const shards = (await probe.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, ...unknown[]], ...unknown[]][];
  const port = shards.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
  const server = cluster.nodes.find((n) => n.port === port);
  if (!server) throw new Error(`no primary found for the slot of merchant ${m}`);
  return server;
}

/**
 * Authorise on a Redis Cluster of 3 primaries with one replica each: each commit confirmed by the replica
 * (REDIS_MIN_REPLICAS found at start: 1) against the same cluster with confirmation off (REDIS_MIN_REPLICAS=0),
 * in alternating rounds. Redis CPU is the merchant's primary's.
 */
async function clusterConfirmation(
  gateway: (name: string, o: GatewayOptions) => Promise<Gateway>,
): Promise<{ rows: [Figures, Figures]; ratios: string }> {
  const cluster = await startRedisCluster('bench-cluster', 1, ['--auto-aof-rewrite-percentage', '0']);
  try {
    const store = { url: cluster.url, server: await primaryOf(cluster, M) };
    const pair = await pairOf(
      [
        () => gateway('bench-cluster-off', { store, env: { REDIS_MIN_REPLICAS: '0' } }),
        'POST /v1/authorise, Redis Cluster, confirmation off',
      ],
      [() => gateway('bench-cluster-confirmed', { store }), 'POST /v1/authorise, Redis Cluster, confirmed by a replica'],
    );
    return pair;
  } finally {
    await cluster.stop();
    removeStoreFiles(...cluster.nodes);
  }
}

function printConfirmation(pair: { rows: [Figures, Figures]; ratios: string }): void {
  const [off, on] = pair.rows;
  console.log(
    `cost of confirmation on authorise (Redis Cluster, 3 primaries with one replica each): ${((1 - on.rps / off.rps) * 100).toFixed(1)} % of req/s, ` +
      `${((on.cpuPerRequest / off.cpuPerRequest - 1) * 100).toFixed(1)} % of server CPU per request (aim <= 20 %, 10 %); ` +
      `each round's req/s ratio, confirmed / off: ${pair.ratios}`,
  );
}

/** Requests the gateway answered on a route since it started, as its own /metrics counts them. */
async function requestsServed(gw: Gateway, route: string): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  let n = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('gateway_http_requests_total{') && line.includes(`route="${route}"`))
      n += Number(line.slice(line.lastIndexOf(' ') + 1));
  return n;
}

/**
 * Authorise against the baseline. The headline is the median of the rounds' req/s ratios (each round runs
 * both side by side, so the machine's noise falls on both): one round slowed by a neighbour moves it less
 * than the ratio of the summed req/s, printed beside it. Then the p99 over all of authorise's requests, each
 * run's own p99, and how much of the runs the gateway's event loop had work (below 100 %: at times every
 * request it held was waiting on Redis).
 */
function printAuthorise(authorise: Figures, base: Figures, medianRatio: number): void {
  const fixed = (ms: number[]) => ms.map((v) => v.toFixed(1)).join(' ');
  console.log(
    `\nauthorise / baseline req/s, median of the rounds: ${medianRatio.toFixed(2)}  (aim >= 0.55, floor 0.50; over all rounds' requests ${(authorise.rps / base.rps).toFixed(2)}; ` +
      `p99 ${authorise.p99.toFixed(1)} ms over its ${authorise.total} requests, aim <= 25 ms)`,
  );
  console.log(
    `  each run's own p99: authorise ${fixed(authorise.runP99s)} ms, baseline ${fixed(base.runP99s)} ms; ` +
      `the event loop on a core ${(authorise.mainBusy * 100).toFixed(0)} % of authorise's runs (the baseline's ${(base.mainBusy * 100).toFixed(0)} %)`,
  );
}

function merchantsFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gw-bench-')), 'merchants.json');
  // the checkout's return and cancel addresses must be on the account's own origin; the bench measures
  // the pages, not the per-account session limit (0: unlimited)
  const account = { account_id: A, sign_key: SIGN_KEY, currencies: ['USD'], website: 'https://shop.example', checkout_rate_per_minute: 0 };
  writeFileSync(file, JSON.stringify({ merchants: [{ merchant_id: M, name: 'Bench Shop', accounts: [account] }] }));
  return file;
}

async function main(): Promise<void> {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  const merchants = merchantsFile();
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info';
  const started: Gateway[] = [];
  const gateway = async (name: string, o: Parameters<typeof startGateway>[3] = {}) => {
    const gw = await startGateway(name, merchants, logLevel, o);
    started.push(gw);
    return gw;
  };
  if (args.has('--soak')) {
    try {
      if (!(await soak(await gateway('bench-soak', { memProbe: true }), Number(process.env.BENCH_SOAK ?? 100_000)))) process.exitCode = 1;
    } finally {
      for (const g of started) await g.stop();
    }
    return;
  }
  if (args.has('--cluster')) {
    try {
      const pair = await clusterConfirmation(gateway);
      print(pair.rows);
      printConfirmation(pair);
      if (pair.rows.some((r) => r.non2xx > 0 || r.errors > 0)) process.exitCode = 1;
    } finally {
      for (const g of started) await g.stop();
    }
    return;
  }
  const allocDir = (name: string) => (args.has('--alloc') ? { allocDir: mkdtempSync(join(tmpdir(), `gw-alloc-${name}-`)) } : {});
  if (args.has('--capture')) {
    // the two capture scenarios alone, with the slowest calls of each: a quick look at the tail
    try {
      const dir = args.has('--profile') ? mkdtempSync(join(tmpdir(), 'gw-profile-capture-')) : undefined;
      const gw = await gateway('bench-capture', { ...(dir ? { profileDir: dir } : {}), ...allocDir('capture') });
      const capture1 = await captureScenario(gw, 1, true);
      // Redis's commands per call of the 8-connection run, counted from its start
      const capture8 = await captureScenario(gw, 8, false, () => gw.redis.client().config('RESETSTAT'));
      const redisCosts = redisCommandCosts(await gw.redis.client().info('commandstats'), capture8.total);
      print([capture1, capture8]);
      for (const c of [capture1, capture8])
        console.log(`${c.name}: p50 ${c.p50.toFixed(1)} ms, p99 ${c.p99.toFixed(1)} ms; slowest: ${slowest(c.latencies, 5)}`);
      printRedisCommands(capture8.name, redisCosts, 'over its measured calls');
      if (capture1.errors + capture8.errors > 0) process.exitCode = 1;
      const served = gw.allocDir ? await requestsServed(gw, '/v1/capture') : 0;
      await gw.stop();
      if (dir)
        for (const c of [capture1, capture8]) printProfiles(dir, c.name, { fromMs: c.from - gw.spawnedAt, toMs: c.to - gw.spawnedAt });
      // the whole life: the authorisations that made the orders, then the captures
      if (gw.allocDir) printAllocations(gw.allocDir, 'authorise and capture', served);
    } finally {
      for (const g of started) await g.stop();
    }
    return;
  }
  const bares = new Set<ChildProcess>();
  const startBare = async (): Promise<{ port: number; child: ChildProcess }> => {
    const port = await freePort();
    const child = await startServer(
      ['--import', 'tsx', 'bench/bare-server.ts'],
      { PORT: String(port) },
      `http://127.0.0.1:${port}/healthz`,
    );
    bares.add(child);
    return { port, child };
  };
  const profileDir = args.has('--profile') ? mkdtempSync(join(tmpdir(), 'gw-profile-')) : undefined;
  const profiling = profileDir !== undefined || args.has('--alloc');
  const rows: Figures[] = [];
  try {
    console.log(
      `\n${CONNECTIONS} connections; ${EPOCHS} epoch(s) of fresh processes, each ${ROUNDS} rounds of ${Math.max(2, DURATION / 2)} s per scenario, after a ${WARMUP} s warm-up (${REWARM} s before each later round); Redis with appendfsync always, no AOF rewrite; gateway LOG_LEVEL=${logLevel}${profileDir ? '; gateway under the V8 profiler' : ''}${args.has('--alloc') ? '; gateways under the sampling heap profiler (their figures are not comparable)' : ''}\n`,
    );
    const bare2k = bareBody();
    // each gateway gets its own Redis, so one scenario's data (and the AOF rewrite it may trigger) does not
    // land in another's figures
    // profiled, the pages' gateway serves the loading page alone, so its profile is that page's
    const pagesProfileDir = profileDir ? mkdtempSync(join(tmpdir(), 'gw-profile-pages-')) : undefined;
    // the last epoch's gateways (a profile's window is its process's); payments stored over every epoch
    let first: Gateway | undefined;
    let pages: Gateway | undefined;
    let served: { authorise: number; pages: number } | undefined;
    let redisCosts: RedisCommandCost[] = [];
    let txns = 0;
    const headline = await inEpochs(async () => {
      const bare = await startBare();
      first = await gateway('bench-authorise', { ...(profileDir ? { profileDir } : {}), ...allocDir('authorise') });
      pages = args.has('--authorise')
        ? undefined
        : await gateway('bench-pages', { ...(pagesProfileDir ? { profileDir: pagesProfileDir } : {}), ...allocDir('pages') });
      const scenarios: Scenario[] = [
        {
          name: 'bare Express, 2 KB JSON',
          run: (seconds, warmup) =>
            measure('', `http://127.0.0.1:${bare.port}/bare`, { body: () => bare2k, warmup }, bare.child.pid!, seconds),
        },
        authoriseOn(first, 'POST /v1/authorise (approved)'),
      ];
      if (pages) {
        scenarios.push(loadingPageOn(pages, 'POST /v1/checkout (loading page)'));
        if (!profiling)
          scenarios.push(scenarioOn(pages, 'GET card page', await cardPagePath(pages), { method: 'GET', accept: 'text/html' }));
      }
      const [gw, pagesGw] = [first, pages];
      return {
        scenarios,
        stop: async () => {
          // what each gateway served in its life, warm-up included: an allocation profile spans all of it
          if (args.has('--alloc'))
            served = {
              authorise: await requestsServed(gw, '/v1/authorise'),
              pages: pagesGw ? await requestsServed(pagesGw, '/v1/checkout') : 0,
            };
          await pagesGw?.stop();
          if (profileDir)
            redisCosts = redisCommandCosts(await gw.redis.client().info('commandstats'), await requestsServed(gw, '/v1/authorise'));
          txns += (await gw.redis.client().keys(`gw:{${M}}:pay:*`)).length;
          await gw.stop();
          await stopChild(bare.child);
          bares.delete(bare.child);
        },
      };
    });
    for (const [i, ratios] of headline.ratios.entries())
      if (i > 0) console.log(`${headline.rows[i]!.name}: req/s ratio to ${headline.rows[0]!.name} in each round: ${ratios}`);
    rows.push(...headline.rows);
    const authorise = rows[1]!;
    const loadingPage = rows[2];
    const pagesSpawnedAt = pages?.spawnedAt ?? 0;
    const compare = process.env.BENCH_COMPARE;
    let compared: { dir: string; what: string; from: number; to: number; spawnedAt: number } | undefined;
    if (compare) {
      // this checkout and the other one, in alternating rounds: a shared machine's noise (which moves one
      // run against the next by 10 % and more) falls on both alike
      const dir = profileDir ? mkdtempSync(join(tmpdir(), 'gw-profile-compare-')) : undefined;
      // the other checkout first: each round's ratio is then this checkout's req/s over the other's
      const page = process.env.BENCH_COMPARE_SCENARIO === 'checkout';
      const what = page ? 'POST /v1/checkout (loading page)' : 'POST /v1/authorise';
      const route = page ? '/v1/checkout' : '/v1/authorise';
      let served = [0, 0];
      const pair = await pairOf(
        [
          () => gateway('bench-compare', { root: compare, ...(dir ? { profileDir: dir } : {}), ...allocDir('compare') }),
          `${what}, ${compare}`,
        ],
        [() => gateway('bench-this-checkout', allocDir('this-checkout')), what],
        page ? loadingPageOn : authoriseOn,
        async (other, ours) => {
          if (args.has('--alloc')) served = [await requestsServed(ours, route), await requestsServed(other, route)];
        },
      );
      const [other, ours] = pair.last;
      const [otherRow, oursRow] = pair.rows;
      rows.push(oursRow, otherRow);
      if (args.has('--alloc')) {
        printAllocations(ours.allocDir!, `${what}, this checkout`, served[0]!);
        printAllocations(other.allocDir!, `${what}, ${compare}`, served[1]!);
      }
      if (dir) compared = { dir, what, from: otherRow.from, to: otherRow.to, spawnedAt: other.spawnedAt };
      print(rows);
      console.log(
        `\nalternating rounds, this checkout / ${compare}: req/s ${(oursRow.rps / otherRow.rps).toFixed(3)}, ` +
          `CPU µs per request ${(oursRow.cpuPerRequest / otherRow.cpuPerRequest).toFixed(3)}, ` +
          `Redis CPU µs per request ${((oursRow.storeCpuPerRequest ?? 0) / (otherRow.storeCpuPerRequest ?? 1)).toFixed(3)}; ` +
          `each round's req/s ratio: ${pair.ratios}`,
      );
    }
    if (profiling || args.has('--authorise')) {
      if (!compare) print(rows);
      if (!profiling) printAuthorise(authorise, rows[0]!, headline.medians[1]!);
      if (served) {
        printAllocations(first!.allocDir!, 'POST /v1/authorise', served.authorise);
        if (pages) printAllocations(pages.allocDir!, 'POST /v1/checkout (loading page)', served.pages);
      }
      if (!profileDir) return;
      printProfiles(profileDir, 'POST /v1/authorise', { fromMs: authorise.from - first!.spawnedAt, toMs: authorise.to - first!.spawnedAt });
      printRedisCommands('POST /v1/authorise', redisCosts);
      if (pagesProfileDir && loadingPage)
        printProfiles(pagesProfileDir, 'POST /v1/checkout (loading page)', {
          fromMs: loadingPage.from - pagesSpawnedAt,
          toMs: loadingPage.to - pagesSpawnedAt,
        });
      if (compared)
        printProfiles(compared.dir, `${compared.what}, ${compare}`, {
          fromMs: compared.from - compared.spawnedAt,
          toMs: compared.to - compared.spawnedAt,
        });
      return;
    }
    const captures = await gateway('bench-capture');
    const capture1 = await captureScenario(captures, 1, true);
    const capture8 = await captureScenario(captures, 8);
    rows.push(capture1, capture8);
    await captures.stop();
    // 1 worker against 2, then metrics off against on, each pair in rounds (inRounds)
    const workers = await pairOf(
      [() => gateway('bench-one-worker'), `POST /v1/authorise, 1 worker`],
      [() => gateway('bench-workers', { workers: 2 }), `POST /v1/authorise, WORKERS=2`],
    );
    const [oneWorker, twoWorkers] = workers.rows;
    rows.push(oneWorker, twoWorkers);
    // the price of the Prometheus series: the same gateway with METRICS_ALLOW=off
    const metrics = await pairOf(
      [() => gateway('bench-no-metrics', { env: { METRICS_ALLOW: 'off' } }), `POST /v1/authorise, metrics off`],
      [() => gateway('bench-metrics'), `POST /v1/authorise, metrics on`],
    );
    const [withoutMetrics, withMetrics] = metrics.rows;
    rows.push(withMetrics, withoutMetrics);
    const confirmation = await clusterConfirmation(gateway);
    rows.push(...confirmation.rows);
    const soaked = await soak(await gateway('bench-soak', { memProbe: true }), Number(process.env.BENCH_SOAK ?? 3000));
    print(rows);
    const base = rows[0]!;
    const cores = availableParallelism();
    printAuthorise(authorise, base, headline.medians[1]!);
    console.log(`authorise CPU µs / baseline CPU µs: ${(authorise.cpuPerRequest / base.cpuPerRequest).toFixed(2)}  (aim <= 1.6)`);
    console.log(
      `loading page / baseline req/s, median of the rounds: ${headline.medians[2]!.toFixed(2)}  (aim >= 0.50; over all rounds' requests ${(rows[2]!.rps / base.rps).toFixed(2)}); ` +
        `card page: ${headline.medians[3]!.toFixed(2)}`,
    );
    console.log(
      `capture of 50 orders at 1 connection: p99 ${capture1.p99.toFixed(1)} ms over ${capture1.total} calls (aim <= 20 ms); ` +
        `the ${CAPTURE_WARM_CALLS} calls before them, the first after the start: ${capture1.coldMs!.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );
    console.log(`capture of 50 orders at 8 connections: p99 ${capture8.p99.toFixed(1)} ms over ${capture8.total} calls (aim <= 60 ms)`);
    console.log(
      `authorise with 2 workers / 1 worker req/s: ${(twoWorkers.rps / oneWorker.rps).toFixed(2)}, each round ${workers.ratios}; ` +
        `CPU µs per request ${oneWorker.cpuPerRequest.toFixed(0)} (1 worker), ${twoWorkers.cpuPerRequest.toFixed(0)} (2 workers); ` +
        `the load generator, on the same ${cores} cores, ${twoWorkers.loadCpuPerRequest.toFixed(0)} µs per request`,
    );
    const twoCores = (2 * 1e6) / twoWorkers.cpuPerRequest;
    console.log(
      `  estimate with two cores the gateway's alone (the load generator elsewhere): up to 2 x 1e6 / ${twoWorkers.cpuPerRequest.toFixed(0)} µs = ` +
        `${twoCores.toFixed(0)} req/s with 2 workers, ${(twoCores / oneWorker.rps).toFixed(2)} times 1 worker's measured req/s ` +
        `(Redis at ${(twoWorkers.storeCpuPerRequest ?? 0).toFixed(0)} µs per request is not the limit below ${(1e6 / Math.max(1, twoWorkers.storeCpuPerRequest ?? 1)).toFixed(0)} req/s)`,
    );
    const cost = 1 - withMetrics.rps / withoutMetrics.rps;
    const cpuCost = withMetrics.cpuPerRequest / withoutMetrics.cpuPerRequest - 1;
    console.log(
      `cost of metrics on authorise: ${(cost * 100).toFixed(1)} % of req/s, ${(cpuCost * 100).toFixed(1)} % of server CPU per request (aim < 5 %); ` +
        `each round's req/s ratio, on / off: ${metrics.ratios}`,
    );
    printConfirmation(confirmation);
    console.log(`transactions stored by the authorise scenario: ${txns} (answers counted in its measured window: ${authorise.total})`);
    if (bodiesMadeLate() > 0)
      console.log(
        `${bodiesMadeLate()} bodies were signed during the load (a pool ran out): raise BENCH_POOL to keep that work out of the figures`,
      );
    if (!soaked || rows.some((r) => r.non2xx > 0 || r.errors > 0)) process.exitCode = 1;
  } finally {
    for (const g of started) await g.stop();
    for (const b of bares) await stopChild(b);
  }
}

void main();
