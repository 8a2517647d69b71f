import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { freePort } from './support/redis.js';
import { LOG_DIR, ROOT } from './support/paths.js';
import { buildGateway } from './support/started-gateway.js';

/** A start as a newcomer makes it: `npm start` (build step, then the gateway), in its own process group. */
interface Launch {
  child: ChildProcess;
  startedAt: number;
  output(): string;
  /** resolves with the exit code and how long after the launch it came */
  exited: Promise<{ code: number | null; afterMs: number }>;
}

const launched: Launch[] = [];
afterEach(() => {
  for (const l of launched.splice(0))
    if (l.child.exitCode === null && l.child.signalCode === null) {
      try {
        process.kill(-l.child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
});

function launch(command: string, args: string[], env: Record<string, string>, logName: string): Launch {
  mkdirSync(LOG_DIR, { recursive: true });
  const log = createWriteStream(join(LOG_DIR, `${logName}.log`));
  const startedAt = Date.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  for (const s of [child.stdout!, child.stderr!])
    s.on('data', (d: Buffer) => {
      out += d.toString();
      log.write(d);
    });
  const exited = once(child, 'exit').then(([code]) => ({ code: code as number | null, afterMs: Date.now() - startedAt }));
  const l = { child, startedAt, output: () => out, exited };
  launched.push(l);
  return l;
}

const npmStart = (env: Record<string, string>, logName: string) => launch('npm', ['start'], env, logName);
const gateway = (env: Record<string, string>, logName: string) => launch(process.execPath, ['dist/main.js'], env, logName);

async function stop(l: Launch): Promise<void> {
  if (l.child.exitCode !== null || l.child.signalCode !== null) return;
  process.kill(-l.child.pid!, 'SIGTERM');
  await l.exited;
}

/** The lines a start printed that are not npm's own ("> payment-gateway@... start" and the command). */
const gatewayLines = (out: string) =>
  out
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('> '))
    .filter((line) => !line.startsWith('build: '));

beforeAll(async () => {
  // what the first `npm start` does (or the last one did): the build, so the starts below find nothing changed
  await buildGateway();
}, 300_000);

describe('the first start', () => {
  it('when nothing changed since the last build, then `npm start` says so and answers /healthz within 8 s', async () => {
    const port = await freePort();
    const l = npmStart({ PORT: String(port), HOST: '127.0.0.1' }, 'first-start-second-npm-start');
    let answeredAfterMs = Infinity;
    while (Date.now() - l.startedAt < 20_000 && l.child.exitCode === null) {
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) {
        answeredAfterMs = Date.now() - l.startedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await stop(l);
    expect(l.output()).toContain('build: up to date');
    expect(l.output()).not.toContain('build: compiling');
    expect(answeredAfterMs).toBeLessThan(8000);
  }, 30_000);

  it('when the port is taken, then `npm start` stops within 15 s naming PORT, and prints no banner, address or password', async () => {
    const taken = await freePort();
    const holder = createServer().listen(taken, '127.0.0.1');
    await once(holder, 'listening');
    try {
      const l = npmStart({ PORT: String(taken), HOST: '127.0.0.1' }, 'first-start-port-taken');
      const { afterMs } = await l.exited;
      expect(l.child.exitCode).not.toBe(0);
      expect(afterMs).toBeLessThan(15_000);
      const out = l.output();
      expect(out).toContain(`configuration error: PORT: port ${taken} on 127.0.0.1 is already in use by another program`);
      expect(out).toContain('set PORT to a free port');
      expect(out).not.toMatch(/password|sign_key|demo merchant|\/portal|gateway listening/i);
    } finally {
      holder.close();
    }
  }, 30_000);

  it.each([
    ['abc', 'PORT: must be a whole number from 0 to 65535, the TCP port to listen on (it is "abc")'],
    ['70000', 'PORT: must be a whole number from 0 to 65535, the TCP port to listen on (it is "70000")'],
  ])('when PORT is %s, then the start stops in plain words naming PORT and what it may be', async (value, message) => {
    const l = gateway({ PORT: value }, `first-start-port-${value}`);
    const { code } = await l.exited;
    expect(code).toBe(2);
    expect(gatewayLines(l.output())).toEqual([`configuration error: ${message}`]);
    expect(l.output()).not.toMatch(/Invalid input|expected number|NaN/);
  });

  it('when REDIS_URL names a port where no Redis runs, then the start stops within 10 s with one line, no stack trace', async () => {
    const closed = await freePort();
    const l = gateway(
      {
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        NODE_ENV: 'development',
        REDIS_URL: `redis://:hunter2@127.0.0.1:${closed}`,
        VAULT_KEY: 'ab'.repeat(32),
      },
      'first-start-redis-unreachable',
    );
    const { code, afterMs } = await Promise.race([
      l.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still running after 10 s:\n${l.output()}`)), 10_000)),
    ]);
    expect(code).toBe(3);
    expect(afterMs).toBeLessThan(10_000);
    const lines = gatewayLines(l.output());
    expect(lines).toEqual([
      `store error: REDIS_URL: cannot reach Redis at 127.0.0.1:${closed} (connection refused); start Redis, or set REDIS_URL to where it runs`,
    ]);
    // neither a stack trace nor the URL's password
    expect(l.output()).not.toMatch(/\n\s+at |Unhandled error event|hunter2/);
  }, 20_000);
});
