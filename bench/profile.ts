import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of a V8 .cpuprofile (as `node --cpu-prof` writes it) that a self-time summary needs. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  functions: { name: string; where: string; ms: number; share: number }[];
  packages: { name: string; ms: number; share: number }[];
  /** our src/ (dist/) by file */
  files: { name: string; ms: number; share: number }[];
}

/** Which package a script belongs to: node_modules/<pkg> (scoped too), node internals, our src/, or V8's own. */
export function packageOf(url: string, functionName: string): string {
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `node_modules/${nm[1]}`;
  if (url.startsWith('node:')) return 'node internals';
  if (/\/(dist|src)\//.test(url)) return 'our src/';
  if (url === '' && functionName.startsWith('(')) return functionName; // (garbage collector), (program)
  return 'V8 builtins and native';
}

/** Self time per function and per package, from the samples and their time deltas. */
export function summariseProfile(
  profile: CpuProfile,
  top = 15,
  window: { fromMs: number; toMs: number } = { fromMs: 0, toMs: Infinity },
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    at += profile.timeDeltas[i] ?? 0;
    if (at < window.fromMs * 1000 || at > window.toMs * 1000) continue;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, profile.timeDeltas[i] ?? 0));
  }
  const fns = new Map<string, { name: string; where: string; us: number }>();
  const pkgs = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue; // waiting for the network is not work
    total += us;
    const name = functionName || '(anonymous)';
    const where = url ? `${url.replace(/^file:\/\/.*?\/(node_modules|dist|src)\//, '$1/')}:${lineNumber + 1}` : '';
    const key = `${name} ${where}`;
    const f = fns.get(key) ?? { name, where, us: 0 };
    f.us += us;
    fns.set(key, f);
    const pkg = packageOf(url, functionName);
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
    if (pkg === 'our src/') {
      const file = where.replace(/:\d+$/, '');
      files.set(file, (files.get(file) ?? 0) + us);
    }
  }
  const share = (us: number) => (total > 0 ? us / total : 0);
  return {
    totalMs: total / 1000,
    functions: [...fns.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((f) => ({ name: f.name, where: f.where, ms: f.us / 1000, share: share(f.us) })),
    packages: [...pkgs.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: share(us) })),
    files: [...files.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: share(us) })),
  };
}

/**
 * Reads every .cpuprofile in `dir` (one per process) and prints one combined summary of the samples taken
 * in `window` (ms since the process started): the measured run, without start-up and warm-up.
 */
export function printProfiles(dir: string, title: string, window: { fromMs: number; toMs: number }): void {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) {
    console.log(`no .cpuprofile written in ${dir}`);
    process.exitCode = 1;
    return;
  }
  const summaries = files.map((f) => summariseProfile(JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile, 1000, window));
  const s = mergeSummaries(summaries);
  const pct = (x: number) => `${(x * 100).toFixed(1).padStart(5)} %`;
  console.log(`\nCPU profile of ${title} (its measured run only): ${s.totalMs.toFixed(0)} ms busy in ${files.length} process(es), ${dir}`);
  console.log('top functions by self time:');
  for (const f of s.functions) console.log(`  ${pct(f.share)} ${f.ms.toFixed(0).padStart(7)} ms  ${f.name}  ${f.where}`);
  console.log('by package:');
  for (const p of s.packages) console.log(`  ${pct(p.share)} ${p.ms.toFixed(0).padStart(7)} ms  ${p.name}`);
  console.log('our src/ by file:');
  for (const f of s.files.slice(0, 10)) console.log(`  ${pct(f.share)} ${f.ms.toFixed(0).padStart(7)} ms  ${f.name}`);
}

/** One Redis command's calls and server time (INFO commandstats) per request the gateway served. */
export interface RedisCommandCost {
  command: string;
  callsPerRequest: number;
  usPerRequest: number;
}

/**
 * Redis's own time by command per request served, from INFO commandstats (counted since the server
 * started) over the requests the gateway answered in the same life; commands made less than once per 100
 * requests (start-up, the bench's own reads) are left out. A script's time includes the commands it ran,
 * which also have lines of their own.
 */
export function redisCommandCosts(commandstats: string, requests: number): RedisCommandCost[] {
  if (requests <= 0) return [];
  const costs: RedisCommandCost[] = [];
  for (const line of commandstats.split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line.trim());
    if (m) costs.push({ command: m[1]!, callsPerRequest: Number(m[2]) / requests, usPerRequest: Number(m[3]) / requests });
  }
  return costs.filter((c) => c.callsPerRequest >= 0.01).sort((a, b) => b.usPerRequest - a.usPerRequest);
}

export function printRedisCommands(title: string, costs: readonly RedisCommandCost[], over = "over the gateway's life"): void {
  console.log(`\nRedis commands per ${title} (commandstats ${over}; a script's time includes its commands):`);
  for (const c of costs)
    console.log(`  ${c.command.padEnd(12)} ${c.callsPerRequest.toFixed(2).padStart(6)} calls ${c.usPerRequest.toFixed(1).padStart(7)} us`);
}

/** One summary of several processes' (a cluster's workers), top 15 of each list. */
function mergeSummaries(all: ProfileSummary[]): ProfileSummary {
  const totalMs = all.reduce((t, s) => t + s.totalMs, 0);
  const add = <T extends { ms: number }>(rows: T[], key: (r: T) => string) => {
    const m = new Map<string, T>();
    for (const r of rows) {
      const k = key(r);
      const prev = m.get(k);
      m.set(k, prev ? { ...prev, ms: prev.ms + r.ms } : { ...r });
    }
    return [...m.values()]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 15)
      .map((r) => ({ ...r, share: totalMs > 0 ? r.ms / totalMs : 0 }));
  };
  return {
    totalMs,
    functions: add(
      all.flatMap((s) => s.functions),
      (f) => `${f.name} ${f.where}`,
    ),
    packages: add(
      all.flatMap((s) => s.packages),
      (p) => p.name,
    ),
    files: add(
      all.flatMap((s) => s.files),
      (f) => f.name,
    ),
  };
}

/** The parts of a V8 sampling heap profile (HeapProfiler.stopSampling) that an allocation summary needs. */
export interface HeapProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  /** bytes allocated here (the sampler's estimate), not in the functions this one called */
  selfSize: number;
  children: HeapProfileNode[];
}

export interface AllocationSummary {
  totalBytes: number;
  /** by the function that allocated (V8's own functions too: a string join, a Map's growth) */
  functions: { name: string; where: string; bytes: number }[];
  /** by the nearest function of our src/ on the stack: what our code caused, in node and packages too */
  ours: { name: string; where: string; bytes: number }[];
}

const whereOf = (url: string, lineNumber: number): string =>
  url ? `${url.replace(/^file:\/\/.*?\/(node_modules|dist|src)\//, '$1/')}:${lineNumber + 1}` : '';

/** Bytes allocated per function, and per nearest function of our src/, from a sampling heap profile. */
export function summariseAllocations(head: HeapProfileNode, top = 15): AllocationSummary {
  const fns = new Map<string, { name: string; where: string; bytes: number }>();
  const ours = new Map<string, { name: string; where: string; bytes: number }>();
  let total = 0;
  const add = (m: typeof fns, name: string, where: string, bytes: number) => {
    const key = `${name} ${where}`;
    const row = m.get(key) ?? { name, where, bytes: 0 };
    row.bytes += bytes;
    m.set(key, row);
  };
  const walk = (node: HeapProfileNode, nearest: { name: string; where: string } | undefined): void => {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    const where = whereOf(url, lineNumber);
    const here = packageOf(url, functionName) === 'our src/' ? { name, where } : nearest;
    if (node.selfSize > 0) {
      total += node.selfSize;
      add(fns, name, where, node.selfSize);
      add(ours, here?.name ?? '(none of ours on the stack)', here?.where ?? '', node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  };
  walk(head, undefined);
  const topOf = (m: typeof fns) => [...m.values()].sort((a, b) => b.bytes - a.bytes).slice(0, top);
  return { totalBytes: total, functions: topOf(fns), ours: topOf(ours) };
}

/**
 * Reads every .heapprofile in `dir` (one per process) and prints the bytes allocated per request, by function
 * and by the nearest function of ours. The profile spans the process's life, so `requests` is every request
 * it served (warm-up included); start-up's allocations (modules, a few MB) are counted in too.
 */
export function printAllocations(dir: string, title: string, requests: number): void {
  const files = readdirSync(dir).filter((f) => f.endsWith('.heapprofile'));
  if (files.length === 0 || requests <= 0) {
    console.log(`no .heapprofile written in ${dir}, or no request served`);
    process.exitCode = 1;
    return;
  }
  const s = summariseAllocations(
    {
      callFrame: { functionName: '(root)', url: '', lineNumber: 0 },
      selfSize: 0,
      children: files.map((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { head: HeapProfileNode }).head),
    },
    20,
  );
  const perRequest = (bytes: number) => `${(bytes / requests / 1024).toFixed(1).padStart(7)} KB`;
  const share = (bytes: number) => `${((bytes / s.totalBytes) * 100).toFixed(1).padStart(5)} %`;
  console.log(
    `\nallocations of ${title}: ${perRequest(s.totalBytes).trim()} a request (${(s.totalBytes / 1024 ** 3).toFixed(2)} GB over ${requests} requests, start-up included), ${dir}`,
  );
  console.log('top functions by bytes allocated in them:');
  for (const f of s.functions) console.log(`  ${share(f.bytes)} ${perRequest(f.bytes)}  ${f.name}  ${f.where}`);
  console.log('by the nearest function of our src/ on the stack:');
  for (const f of s.ours) console.log(`  ${share(f.bytes)} ${perRequest(f.bytes)}  ${f.name}  ${f.where}`);
}
