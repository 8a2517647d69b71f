import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { ROOT } from '../support/paths.js';
import { freePort } from '../support/redis.js';
import { startBuiltGateway, type StartedGateway } from '../support/started-gateway.js';

/**
 * Every shell example of README.md and docs/*.md runs as written against a gateway started as the README's
 * quick start says (`NOTIFY_ALLOW_PRIVATE=1 npm start`: built, the start script's command, the demo
 * merchant), one file's examples after another in one shell, so an example may use what an earlier one of
 * its file captured. Nothing in them is changed: they reach the gateway through `$GATEWAY_URL`, which the test
 * sets to its gateway on a port other than the default, so an example that names a fixed address fails.
 *
 * - An example is a ```sh block. A block preceded by `<!-- not run: <why> -->` is not run (it installs,
 *   starts or deploys something); the test lists them.
 * - Every curl of an example must answer 2xx, unless a comment line before it says `expect HTTP <status>`
 *   (the next curl must answer that status).
 * - A command that fails, a curl that cannot connect or answers another status fails the test, naming the
 *   file, the block's line and the output.
 */
const FILES = [
  'README.md',
  'SECURITY.md',
  'CHANGELOG.md',
  'packages/sdk/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

interface Block {
  file: string;
  line: number;
  code: string;
  skipped?: string;
}

/** The ```sh blocks of a Markdown text, with the line each starts at and its `not run` reason if any. */
export function shellBlocks(file: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(sh|bash|shell)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!.slice(indent));
    let before = start - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const skipped = /^\s*<!-- not run: (.+?) -->\s*$/.exec(lines[before] ?? '')?.[1];
    blocks.push({ file, line: start + 1, code: body.join('\n'), ...(skipped ? { skipped } : {}) });
  }
  return blocks;
}

/** The anchors of a Markdown text's headings, as GitHub writes them. */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, title] of text.matchAll(/^#{1,6} (.+)$/gm))
    anchors.add(
      title!
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/ /g, '-'),
    );
  return anchors;
}

/** What every file's script starts with: curl checks the status of every answer. */
const PRELUDE = String.raw`
set -eo pipefail
curl() {
  local out code rc want
  out=$(mktemp)
  code=$(command curl -o "$out" -w '%{http_code}' "$@") || { rc=$?; cat "$out"; rm -f "$out"; echo "curl failed ($rc): curl $*" >&2; return $rc; }
  cat "$out"; rm -f "$out"
  want=2xx
  if [ -f "$DOCS_EXPECT" ]; then want=$(cat "$DOCS_EXPECT"); rm -f "$DOCS_EXPECT"; fi
  echo "$code" >> "$DOCS_STATUSES"
  case "$want:$code" in
    2xx:2??) return 0 ;;
    "$code:$code") return 0 ;;
  esac
  echo "unexpected HTTP $code (expected $want): curl $*" >&2
  return 22
}
`;

/** A block's text as it runs: the gateway's port, the status an example expects, and where it came from. */
function runnable(block: Block): string {
  const code = block.code.replace(/^(\s*)#.*\bexpect HTTP (\d{3})\b.*$/gm, '$1echo $2 > "$DOCS_EXPECT"');
  return `echo "::block ${block.file}:${block.line}" >&2\n${code}\n`;
}

let gateway: StartedGateway;
let work: string;
const ran: { file: string; blocks: number; calls: number }[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'gw-docs-'));
  gateway = await startBuiltGateway(
    // the README's start line: with an operator key, so the operators' examples (docs/operators.md) run too
    {
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      NOTIFY_ALLOW_PRIVATE: '1',
      OPERATOR_KEYS: 'docs:docs-operator-secret-0123456789abcdef',
    },
    'runnable-docs',
  );
}, 120_000);
afterAll(async () => {
  await gateway?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
  const calls = ran.reduce((n, r) => n + r.calls, 0);
  const blocks = ran.reduce((n, r) => n + r.blocks, 0);
  process.stdout.write(`runnable docs: ${blocks} shell examples in ${ran.length} files ran, ${calls} HTTP calls\n`);
});

/** Runs a script in its own process group (an example may start a listener in the background). */
function bash(script: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    // on exit, not close: a listener an example left in the background keeps the output open
    child.on('exit', (code) => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // the group has ended
      }
      setTimeout(() => resolve({ code: code ?? -1, output }), 50);
    });
  });
}

describe('the shell examples of the README and docs/', () => {
  const all = FILES.flatMap((f) => shellBlocks(f, readFileSync(join(ROOT, f), 'utf8')));

  it('when a block is not run, then it says why; and every document has its examples run', () => {
    for (const b of all.filter((x) => x.skipped)) expect(b.skipped, `${b.file}:${b.line}`).toMatch(/\w{3}/);
    expect(all.filter((b) => !b.skipped).length).toBeGreaterThan(20);
  });

  it('when the documents name the gateway, then they say $GATEWAY_URL: the default address is written at most twice, and in no example run', () => {
    expect(new URL(gateway.baseUrl).port).not.toBe('8080');
    const fixed = /(localhost|127\.0\.0\.1):8080/g;
    const places = FILES.flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => [...line.matchAll(fixed)].map(() => `${f}:${i + 1}: ${line.trim()}`)),
    );
    expect(places.length, places.join('\n')).toBeLessThanOrEqual(2);
    // the one an example runs is the variable's default, which the test's own GATEWAY_URL overrides
    const run = all.filter(
      (b) => !b.skipped && /(localhost|127\.0\.0\.1):8080/.test(b.code.replaceAll('${GATEWAY_URL:-http://localhost:8080}', '')),
    );
    expect(run.map((b) => `${b.file}:${b.line}`)).toEqual([]);
  });

  it('when the documents link to each other, then every file and heading linked exists, and none points outside the repository', () => {
    const broken: string[] = [];
    for (const file of FILES) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      if (/DESIGN|\.\.\/shared/.test(text)) broken.push(`${file}: names a document outside the repository`);
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const linked = path === '' ? file : join(dirname(file), path);
        if (!existsSync(join(ROOT, linked))) {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (anchor && linked.endsWith('.md') && !headingAnchors(readFileSync(join(ROOT, linked), 'utf8')).has(anchor))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  for (const file of FILES) {
    const blocks = all.filter((b) => b.file === file && !b.skipped);
    if (blocks.length === 0) continue;
    it(`when ${file}'s ${blocks.length} examples run against the started gateway, then each succeeds with the status it expects`, async () => {
      const statuses = join(work, `${relative(ROOT, file).replaceAll('/', '_')}.statuses`);
      writeFileSync(statuses, '');
      const script = PRELUDE + blocks.map((b) => runnable(b)).join('\n');
      const { code, output } = await bash(script, {
        DOCS_STATUSES: statuses,
        DOCS_EXPECT: join(work, 'expect'),
        GATEWAY_URL: gateway.baseUrl,
      });
      const block = [...output.matchAll(/::block (\S+)/g)].at(-1)?.[1];
      expect(code, `${file}: the example at ${block} failed:\n${output.slice(-4000)}`).toBe(0);
      const calls = readFileSync(statuses, 'utf8').split('\n').filter(Boolean).length;
      ran.push({ file, blocks: blocks.length, calls });
    }, 60_000);
  }
});
