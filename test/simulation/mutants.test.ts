import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { MUTANTS, type Mutant } from './mutants.js';

/**
 * The mutants check (docs/operations.md): each named reversal of a money rule (mutants.ts) is applied to a copy
 * of the source (node_modules linked, not copied), and the seeded simulation is run there as `npm test` runs it,
 * stopping at its first failing seed (test/simulation/run-seeds.ts). Every mutant must make it fail within the
 * seeds CI runs: one that survives is a rule the simulation does not test, and fails the build. A patch that no
 * longer applies fails too, naming the mutant and the file; so does a killing seed that fails without the mutant
 * as well (the simulation would then be broken, not the mutant caught). MUTANT=<name> runs one,
 * MUTANT_SUITES=memory,stripe runs the mutants under those simulations, and MUTANTS_KEEP=1 keeps the patched
 * copies (their paths are printed) to replay a seed there.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const ONLY = process.env.MUTANT;
/** the simulations to run each mutant under instead of its own list (memory, stripe, adyen; comma-separated) */
const SUITES = process.env.MUTANT_SUITES;
const KEEP = process.env.MUTANTS_KEEP === '1';
/** mutants run side by side, each one process */
const LANES = Math.max(2, Math.min(4, availableParallelism()));
/** what is not copied: installed packages (linked instead), git's data, build and test output */
const SKIPPED = new Set(['node_modules', '.git', 'dist', 'coverage', 'test-artifacts']);

interface Verdict {
  mutant: string;
  killed: boolean;
  line: string;
  /** the simulation and seed that killed it (`stripe:4`) */
  by?: string;
}

/** A copy of the repository with the mutant's patches applied; throws when a patch's text is not found exactly once. */
function patchedCopy(m: Mutant): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-mutant-'));
  cpSync(ROOT, dir, { recursive: true, filter: (src) => !SKIPPED.has(basename(src)) || resolve(src) === ROOT });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const p of m.patches) {
    const file = join(dir, p.file);
    const text = readFileSync(file, 'utf8');
    const found = text.split(p.find).length - 1;
    if (found !== 1)
      throw new Error(
        `mutant "${m.name}": its patch of ${p.file} no longer applies (its text is found ${found} times, not once): rewrite it`,
      );
    writeFileSync(
      file,
      text.replace(p.find, () => p.replace),
    );
  }
  return dir;
}

/** Runs test/simulation/run-seeds.ts in `dir`; answers its SIM-RESULT (undefined when it gave none) and its output. */
function runSeedsIn(dir: string, args: string[]): Promise<{ result?: Record<string, unknown>; output: string; code: number | null }> {
  return new Promise((done) => {
    const child = spawn(join(dir, 'node_modules/.bin/tsx'), ['test/simulation/run-seeds.ts', ...args], {
      cwd: dir,
      env: { ...process.env, SIM_SEED: '', NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => {
      const line = output.split('\n').find((l) => l.startsWith('SIM-RESULT '));
      done({ ...(line ? { result: JSON.parse(line.slice('SIM-RESULT '.length)) as Record<string, unknown> } : {}), output, code });
    });
  });
}

/** Runs the mutant's simulations in its copy, until one fails; answers its verdict. */
async function verdictOf(dir: string, m: Mutant): Promise<Verdict> {
  const started = Date.now();
  const { result, output, code } = await runSeedsIn(dir, [SUITES ?? m.suites.join(',')]);
  const seconds = Math.round((Date.now() - started) / 1000);
  if (!result) return { mutant: m.name, killed: false, line: `no result (exit ${code}):\n${output.slice(-2_000)}` };
  const r = result as { ran: Record<string, number>; suite?: string; failing?: number; violations?: string[] };
  const ran = Object.entries(r.ran)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ');
  if (r.failing === undefined) return { mutant: m.name, killed: false, line: `SURVIVED (seeds run: ${ran}; ${seconds} s)` };
  return {
    mutant: m.name,
    killed: true,
    by: `${r.suite}:${r.failing}`,
    line: `killed by the ${r.suite} simulation, first failing seed ${r.failing} (seeds run: ${ran}; ${seconds} s): ${r.violations![0]}`,
  };
}

describe('the mutants check', () => {
  const copies: string[] = [];
  afterAll(() => {
    if (!KEEP) for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  });

  it('when each named reversal of a money rule is applied to a copy of the source, then the seeded simulation fails on it', async () => {
    const mutants = MUTANTS.filter((m) => ONLY === undefined || m.name === ONLY);
    expect(mutants.length, `no mutant is named ${ONLY}`).toBeGreaterThan(0);
    const started = Date.now();
    const verdicts: Verdict[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: LANES }, async () => {
        while (next < mutants.length) {
          const m = mutants[next++]!;
          const dir = patchedCopy(m);
          copies.push(dir);
          const v = await verdictOf(dir, m);
          verdicts.push(v);
          console.log(`mutant "${m.name}": ${v.line}${KEEP ? ` [copy: ${dir}]` : ''}`);
        }
      }),
    );
    // each killing seed passes on the source as it is: the failure is the mutant's, not the simulation's
    const killers = [...new Set(verdicts.flatMap((v) => (v.by ? [v.by] : [])))];
    const base = killers.length > 0 ? await runSeedsIn(ROOT, ['--only', killers.join(',')]) : undefined;
    console.log(
      `mutants check: ${verdicts.filter((v) => v.killed).length} of ${verdicts.length} killed in ${Math.round((Date.now() - started) / 1000)} s`,
    );
    expect(
      base === undefined || base.result !== undefined,
      `the killing seeds gave no result unmutated:\n${base?.output.slice(-2_000)}`,
    ).toBe(true);
    const unmutated = (base?.result?.failing ?? []) as { suite: string; seed: number; violations: string[] }[];
    expect(
      unmutated.map((f) => `the ${f.suite} simulation's seed ${f.seed} fails without any mutant too: ${f.violations[0]}`).join('\n'),
    ).toBe('');
    const survivors = verdicts.filter((v) => !v.killed);
    expect(survivors.map((v) => `${v.mutant}: ${v.line}`).join('\n')).toBe('');
  }, 900_000);
});
