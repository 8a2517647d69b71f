import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, startRedis, type RedisServer } from '../test/support/redis.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
/**
 * Seconds of load before a scenario's first measured run. A fresh gateway needs several seconds under load
 * before V8 has compiled its paths: CPU per request, second by second after a 2 s warm-up, was 2428, 1719,
 * 1389, 1190, 1089 and then about 1000 µs on the loading page, 2028, 1065, 958 and then about 830 on
 * authorise, while bare Express was steady from its first second. A shorter warm-up measured start-up.
 */
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 8);
/**
 * Seconds of load before each later round of a scenario. Its gateway sat idle while the other scenarios ran
 * (half a minute), and V8's memory reducer may then have shrunk its heap: with --trace-gc, three
 * "Mark-Compact (reduce)" took it from 108 to 23 MB, and the first 3 s back under load ran six full
 * collections instead of one, at 1075 against 650 µs a request. A round measured that regrowth, at random.
 */
export const REWARM = Number(process.env.BENCH_REWARM ?? 2);

export interface Figures {
  name: string;
  /** server CPU per answered request: a figure that noise on a shared machine moves much less than req/s */
  cpuPerRequest: number;
  /** the store's (redis-server's) CPU per answered request, where the scenario has one */
  storeCpuPerRequest?: number;
  /** the load generator's own CPU (this process: autocannon) per answered request */
  loadCpuPerRequest: number;
  rps: number;
  /** over every request of the row: a row of several runs has their latencies together (combine) */
  p50: number;
  p99: number;
  /** each measured run's own p99, in the order run */
  runP99s: number[];
  /** the server's main thread: the share of the run's wall time it was on a core (1: never idle) */
  mainBusy: number;
  /** every request's latency (ms), as autocannon timed it */
  latencies: Float64Array;
  non2xx: number;
  errors: number;
  total: number;
  /** when the measured run started and ended (epoch ms) */
  from: number;
  to: number;
}

/**
 * The processes this bench started and has not stopped, killed when the bench ends however it ends: an error
 * thrown in the load generator's callbacks ends the process without running any finally, and once left two
 * gateways and their Redis servers running (and taking CPU from the next run).
 */
const running = new Set<number>();
process.on('exit', () => {
  for (const pid of running) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended meanwhile
    }
  }
});

/**
 * Starts a server process and waits until `readyUrl` answers 200 (whatever its log level prints). Its output
 * goes to a file, as a deployed gateway's goes to a log collector: through a pipe, the bench process (which
 * is also the load generator) would read every log line on the cores it measures.
 */
export async function startServer(
  args: string[],
  env: Record<string, string>,
  readyUrl: string,
  ipc = false,
  cwd = ROOT,
): Promise<ChildProcess> {
  const logDir = mkdtempSync(join(tmpdir(), 'gw-bench-log-'));
  const logFile = join(logDir, 'server.log');
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH, ...env },
    stdio: ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
  });
  closeSync(fd);
  running.add(child.pid!);
  child.once('exit', () => running.delete(child.pid!));
  const out = () => `${readFileSync(logFile, 'utf8').slice(0, 10_000)} (${logFile})`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}): ${out()}`);
    const ok = await fetch(readyUrl).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) {
      // a long bench writes tens of megabytes of request lines: kept while the server runs, not after
      child.once('exit', () => rmSync(logDir, { recursive: true, force: true }));
      return child;
    }
    if (Date.now() - started > 30_000) throw new Error(`server not ready at ${readyUrl}: ${out()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The process and its descendants (a cluster primary's workers), from /proc. */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // the process ended while we looked
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

/** CPU time (user + system) a process and its children have used so far, in microseconds, from /proc. */
export function cpuMicros(pid: number): number {
  let micros = 0;
  for (const p of processTree(pid)) micros += statMicros(`/proc/${p}/stat`) || 0;
  return micros;
}

/** User and system CPU time (µs) in a /proc stat file; NaN when it cannot be read (the process ended). */
function statMicros(file: string): number {
  try {
    const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Resident set size of a process, in bytes, from /proc. */
export function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

/**
 * Bodies are made before the clock starts (each used once), so the load generator spends the measured
 * time sending, not signing: both scenarios then cost the generator the same.
 */
export function bodyPool(make: () => string, count: number): () => string {
  const pool = Array.from({ length: count }, make);
  let i = 0;
  return () => {
    if (i < pool.length) return pool[i++]!;
    // a faster machine than the pool was sized for: the run goes on, the generator signing as it sends
    lateBodies++;
    return make();
  };
}

let lateBodies = 0;

/** Bodies made during the load because a pool ran out (each cost the load generator a signature). */
export function bodiesMadeLate(): number {
  return lateBodies;
}

export interface Load {
  method?: 'GET' | 'POST';
  contentType?: string;
  accept?: string;
  body?: () => string;
  connections?: number;
  /** a fixed number of requests instead of a duration */
  amount?: number;
  onResponse?: (status: number, body: string) => void;
  /** seconds of load before the measured run (default WARMUP; 0: none) */
  warmup?: number;
}

/**
 * CPU time of a process's main thread (the event loop's), in microseconds. Against the run's wall time it
 * says how much of the run the loop had work: a gateway whose requests all wait on the store at once idles.
 */
function mainThreadMicros(pid: number): number {
  return statMicros(`/proc/${pid}/task/${pid}/stat`);
}

/** The p-th percentile (nearest rank) of latencies; 0 when there are none. */
export function percentile(latencies: Float64Array, p: number): number {
  return ofSorted(latencies.slice().sort(), p);
}

/** p50 and p99 of latencies, sorted once. */
function p50p99(latencies: Float64Array): { p50: number; p99: number } {
  const sorted = latencies.slice().sort();
  return { p50: ofSorted(sorted, 50), p99: ofSorted(sorted, 99) };
}

function ofSorted(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;
}

/** Latencies of several runs as one array. */
function joined(runs: readonly Float64Array[]): Float64Array {
  const out = new Float64Array(runs.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const r of runs) {
    out.set(r, at);
    at += r.length;
  }
  return out;
}

/** One scenario: a warm-up (WARMUP seconds unless told; none before a fixed amount), then the measured run with the server's CPU. */
export async function measure(
  name: string,
  url: string,
  load: Load,
  serverPid: number,
  seconds = DURATION,
  storePid?: number,
): Promise<Figures> {
  const { body, method = 'POST' } = load;
  const headers: Record<string, string> = { 'content-type': load.contentType ?? 'application/x-www-form-urlencoded' };
  if (load.accept) headers.accept = load.accept;
  /** a run of the load; `times` gets each 2xx answer's time (ms), as autocannon records it in its histogram */
  const run = (duration: number, onResponse?: Load['onResponse'], times?: number[]) =>
    new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        {
          url,
          connections: load.connections ?? CONNECTIONS,
          ...(load.amount ? { amount: load.amount } : { duration }),
          requests: [
            {
              method,
              headers,
              ...(body ? { setupRequest: (req: autocannon.Request) => ({ ...req, body: body() }) } : {}),
              ...(onResponse ? { onResponse } : {}),
            },
          ],
        },
        (err, result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(result)),
      );
      if (times)
        instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
          if (status >= 200 && status < 300) times.push(ms);
        });
    });
  const warmup = load.amount ? 0 : (load.warmup ?? WARMUP);
  if (warmup > 0) await run(warmup); // warm-up: JIT, heap size, connection pools
  const cpuBefore = cpuMicros(serverPid);
  const mainBefore = mainThreadMicros(serverPid);
  const storeBefore = storePid === undefined ? 0 : cpuMicros(storePid);
  const loadBefore = process.cpuUsage();
  const from = Date.now();
  // every answer's time: a row's percentiles are then over all of its runs' requests (combine), where
  // autocannon's own figures are one run's
  const times: number[] = [];
  const r = await run(seconds, load.onResponse, times);
  const to = Date.now();
  const loadCpu = process.cpuUsage(loadBefore);
  const mainBusy = (mainThreadMicros(serverPid) - mainBefore) / ((to - from) * 1000);
  const latencies = Float64Array.from(times);
  const { p50, p99 } = p50p99(latencies);
  const cpuPerRequest = (cpuMicros(serverPid) - cpuBefore) / Math.max(1, r.requests.total);
  const storeCpu = storePid === undefined ? undefined : (cpuMicros(storePid) - storeBefore) / Math.max(1, r.requests.total);
  return {
    name,
    cpuPerRequest,
    ...(storeCpu === undefined ? {} : { storeCpuPerRequest: storeCpu }),
    loadCpuPerRequest: (loadCpu.user + loadCpu.system) / Math.max(1, r.requests.total),
    rps: r.requests.average,
    p50,
    p99,
    runP99s: [p99],
    mainBusy,
    latencies,
    non2xx: r.non2xx,
    errors: r.errors,
    total: r.requests.total,
    from,
    to,
  };
}

/**
 * Several measured runs of one scenario as one row: requests and CPU summed, p50 and p99 over every request of
 * the runs, each run's p99 kept beside them.
 */
export function combine(name: string, runs: Figures[]): Figures {
  const total = runs.reduce((t, r) => t + r.total, 0);
  const seconds = runs.reduce((t, r) => t + (r.to - r.from) / 1000, 0);
  const latencies = joined(runs.map((r) => r.latencies));
  const cpu = runs.reduce((t, r) => t + r.cpuPerRequest * r.total, 0);
  const store = runs.every((r) => r.storeCpuPerRequest !== undefined)
    ? { storeCpuPerRequest: runs.reduce((t, r) => t + r.storeCpuPerRequest! * r.total, 0) / Math.max(1, total) }
    : {};
  return {
    name,
    cpuPerRequest: cpu / Math.max(1, total),
    ...store,
    loadCpuPerRequest: runs.reduce((t, r) => t + r.loadCpuPerRequest * r.total, 0) / Math.max(1, total),
    rps: total / seconds,
    ...p50p99(latencies),
    runP99s: runs.flatMap((r) => r.runP99s),
    mainBusy: runs.reduce((t, r) => t + r.mainBusy * (r.to - r.from), 0) / Math.max(1, seconds * 1000),
    latencies,
    non2xx: runs.reduce((t, r) => t + r.non2xx, 0),
    errors: runs.reduce((t, r) => t + r.errors, 0),
    total,
    from: runs[0]!.from,
    to: runs[runs.length - 1]!.to,
  };
}

/** The table, each row with its req/s and CPU ratio to the baseline (the first row). */
export function print(rows: Figures[]): void {
  const base = rows[0]!;
  const line = (cells: (string | number)[]) =>
    cells.map((c, i) => String(c).padStart(i === 0 ? 0 : i === cells.length - 1 ? 14 : 11)).join('');
  console.log(
    line(['scenario'.padEnd(40), 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'CPU µs/req', 'rps ratio', 'CPU ratio', 'Redis µs/req']),
  );
  for (const r of rows)
    console.log(
      line([
        r.name.padEnd(40),
        r.rps.toFixed(0),
        r.p50.toFixed(1),
        r.p99.toFixed(1),
        r.non2xx,
        r.errors,
        r.cpuPerRequest.toFixed(0),
        (r.rps / base.rps).toFixed(2),
        (r.cpuPerRequest / base.cpuPerRequest).toFixed(2),
        r.storeCpuPerRequest === undefined ? '' : r.storeCpuPerRequest.toFixed(0),
      ]),
    );
}

export interface Gateway {
  port: number;
  url: string;
  child: ChildProcess;
  /** when the process was spawned (epoch ms): its profile's time zero, near enough */
  spawnedAt: number;
  redis: RedisServer;
  /** where its allocation profile is written when it stops (GatewayOptions.allocDir) */
  allocDir?: string;
  stop: () => Promise<void>;
}

export interface GatewayOptions {
  workers?: number;
  /** run under `node --cpu-prof`, profiles written here when the process ends */
  profileDir?: string;
  /** preload bench/alloc-probe.mjs: the process writes a heap allocation profile here when it ends */
  allocDir?: string;
  /** preload bench/mem-probe.mjs: the process answers IPC messages with its memory use */
  memProbe?: boolean;
  /** more environment for the gateway */
  env?: Record<string, string>;
  /** another checkout of the gateway, built (its dist/main.js runs): a before-and-after in one run */
  root?: string;
  /** a store started by the caller (a Redis Cluster), not one of the gateway's own: its URL, and the server whose CPU is counted */
  store?: { url: string; server: RedisServer };
}

/**
 * The node options `npm start` gives the gateway (package.json's start script is `node [options]
 * dist/main.js`): the bench starts every gateway as it is deployed, each checkout with its own options.
 */
export function startOptions(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const start = pkg.scripts?.start ?? '';
  const words = start.trim().split(/\s+/);
  if (words[0] !== 'node' || words[words.length - 1] !== 'dist/main.js') {
    throw new Error(`package.json in ${root}: start is not "node [options] dist/main.js": ${start}`);
  }
  return words.slice(1, -1);
}

/**
 * Deletes the data directories of stopped Redis servers of the bench: their append-only files are gigabytes a
 * full run (the cluster scenario's six nodes about 5 GB), and the bench never reads them again.
 */
export function removeStoreFiles(...servers: RedisServer[]): void {
  for (const s of servers) rmSync(s.dir, { recursive: true, force: true });
}

/** SIGTERM to a server the bench started, resolved once it has exited (at once if it already had). */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** A gateway process (dist/main.js, with npm start's node options) on its own real Redis. */
export async function startGateway(name: string, merchantsFile: string, logLevel: string, o: GatewayOptions = {}): Promise<Gateway> {
  // no AOF rewrite during the run (appendfsync stays always): under authorise the file passed Redis's 64 MB
  // rewrite threshold after about 13 s, and each rewrite forked a child that took a second of a core while
  // the gateway was measured, twice in 20 s; with two cores shared, rounds fell by a quarter at random
  const redis = o.store?.server ?? (await startRedis(name, ['--auto-aof-rewrite-percentage', '0']));
  if (!o.store) running.add(redis.pid);
  const port = await freePort();
  const nodeArgs = [
    ...(o.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${o.profileDir}`] : []),
    ...(o.memProbe ? ['--expose-gc', '--import', './bench/mem-probe.mjs'] : []),
    // this checkout's probe, whichever checkout runs
    ...(o.allocDir ? ['--import', join(ROOT, 'bench', 'alloc-probe.mjs')] : []),
  ];
  const spawnedAt = Date.now();
  const child = await startServer(
    [...startOptions(o.root ?? ROOT), ...nodeArgs, 'dist/main.js'],
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: o.store?.url ?? redis.url,
      VAULT_KEY: 'b'.repeat(64),
      MERCHANTS_FILE: merchantsFile,
      LOG_LEVEL: logLevel,
      WORKERS: String(o.workers ?? 1),
      ...(o.allocDir ? { BENCH_ALLOC_DIR: o.allocDir } : {}),
      ...o.env,
    },
    `http://127.0.0.1:${port}/readyz`,
    o.memProbe,
    o.root ?? ROOT,
  );
  const stop = async () => {
    await stopChild(child); // profiles are written on exit
    if (o.store) return;
    await redis.stop();
    running.delete(redis.pid);
    removeStoreFiles(redis);
  };
  return { port, url: `http://127.0.0.1:${port}`, child, spawnedAt, redis, stop, ...(o.allocDir ? { allocDir: o.allocDir } : {}) };
}
