import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LOG_DIR, ROOT } from './paths.js';

const run = promisify(execFile);

/** One build at a time across the suite's processes: a lock directory beside the system's temporary files. */
const LOCK = join(tmpdir(), `payment-gateway-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);

/**
 * The build `npm start` runs first (scripts/build-if-changed.mjs: compiles only when src/ changed since the
 * last build). Several test files may ask at once: one builds, the others wait for it.
 */
export async function buildGateway(): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // a lock left by a build that died is taken over after two minutes
      const held = statSync(LOCK, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() - started > 180_000) throw new Error(`buildGateway: ${LOCK} held for 3 minutes`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    await run(process.execPath, ['scripts/build-if-changed.mjs'], { cwd: ROOT, env: process.env, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`the build failed:\n${stdout}${stderr}`, { cause: err });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** `node [options] dist/main.js` as package.json's start script says, its options only. */
export function startScriptOptions(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const words = (pkg.scripts?.start ?? '').trim().split(/\s+/);
  if (words[0] !== 'node' || words.at(-1) !== 'dist/main.js') throw new Error(`package.json start is not "node [options] dist/main.js"`);
  return words.slice(1, -1);
}

export interface StartedGateway {
  child: ChildProcess;
  /** BASE_URL as the gateway works it out (http://localhost:<PORT> unless given) */
  baseUrl: string;
  /** what the process wrote so far */
  output(): string;
  stop(): Promise<void>;
}

/**
 * The gateway as the README starts it: built, then `npm start`'s command (node with the start script's
 * options, dist/main.js) in the repository, with only PATH and the given environment. Resolves once it
 * answers /readyz; its output goes to test-artifacts/logs/<logName>.log, which the card-data scan reads.
 */
export async function startBuiltGateway(env: Record<string, string>, logName: string): Promise<StartedGateway> {
  await buildGateway();
  mkdirSync(LOG_DIR, { recursive: true });
  const log = createWriteStream(join(LOG_DIR, `${logName}.log`));
  const child = spawn(process.execPath, [...startScriptOptions(), 'dist/main.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  for (const s of [child.stdout!, child.stderr!])
    s.on('data', (d: Buffer) => {
      out += d.toString();
      log.write(d);
    });
  const baseUrl = env.BASE_URL ?? `http://localhost:${env.PORT ?? '8080'}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the gateway exited with ${child.exitCode}:\n${out}`);
    const ready = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { child, baseUrl, output: () => out, stop };
    if (Date.now() - started > 30_000) {
      await stop();
      throw new Error(`the gateway did not answer /readyz within 30 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
