import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type RedisServer } from '../../support/redis.js';
import { spawnGateway } from '../../support/process.js';
import { authoriseBody, testMerchants, VAULT_KEY_HEX } from '../../support/gateway.js';

/** A gateway process on a real Redis, with the test merchants from a file (so every line it writes is a log line). */
export interface RunningGateway {
  child: ChildProcess;
  base: string;
  output(): string;
}

const children: ChildProcess[] = [];

/** Kills what startOnRedis started and is still running (for afterAll). */
export function killGateways(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

export async function startOnRedis(name: string, redis: RedisServer, env: Record<string, string> = {}): Promise<RunningGateway> {
  const dir = join(tmpdir(), `gw-${name}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'merchants.json'), JSON.stringify(testMerchants()));
  const port = await freePort();
  const { child, output } = spawnGateway(
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      VAULT_KEY: VAULT_KEY_HEX,
      MERCHANTS_FILE: join(dir, 'merchants.json'),
      LOG_LEVEL: 'info',
      ...env,
    },
    name,
  );
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() - started > 30_000 || child.exitCode !== null) throw new Error(`gateway did not start: ${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, base, output };
}

export interface Answer {
  order_no: string;
  /** HTTP status, or 0 when the request failed (a reset, a refused connection) */
  status: number;
  /** the error code of a refusal (JSON body), or the XML answer's order_status */
  code: string;
  retryAfter: string | null;
  ms: number;
  /** when the request was sent (Date.now()) */
  at: number;
  error?: string;
}

/** One /v1/authorise with a fresh order_no, its answer read as a merchant would (JSON errors, XML results). */
export async function authoriseOnce(base: string, body: Record<string, unknown> = authoriseBody()): Promise<Answer> {
  const at = Date.now();
  const order_no = String(body.order_no);
  try {
    const res = await fetch(`${base}/v1/authorise`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json, application/xml;q=0.9' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    const code =
      res.status === 200
        ? (/<order_status>(\d)<\/order_status>/.exec(text)?.[1] ?? '?')
        : String((JSON.parse(text) as { code?: string }).code);
    return { order_no, status: res.status, code, retryAfter: res.headers.get('retry-after'), ms: Date.now() - at, at };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return {
      order_no,
      status: 0,
      code: '',
      retryAfter: null,
      ms: Date.now() - at,
      at,
      error: `${(err as Error).message}: ${cause?.code ?? cause?.message ?? ''}`,
    };
  }
}

/** `loops` clients sending authorisations one after another until stop() (their answers in `answers`). */
export function authoriseLoad(
  base: string,
  loops: number,
): { answers: Answer[]; bodies: Map<string, Record<string, unknown>>; stop(): Promise<void> } {
  const answers: Answer[] = [];
  const bodies = new Map<string, Record<string, unknown>>();
  let stopped = false;
  const loop = async (): Promise<void> => {
    while (!stopped) {
      const body = authoriseBody();
      bodies.set(String(body.order_no), body);
      answers.push(await authoriseOnce(base, body));
    }
  };
  const running = Array.from({ length: loops }, loop);
  return {
    answers,
    bodies,
    stop: async () => {
      stopped = true;
      await Promise.all(running);
    },
  };
}

/** Every line the process wrote that is not a JSON object (an on-call engineer's log pipeline drops those). */
export function nonJsonLines(output: string): string[] {
  return output
    .split('\n')
    .filter((l) => l.trim() !== '')
    .filter((l) => {
      try {
        return typeof JSON.parse(l) !== 'object';
      } catch {
        return true;
      }
    });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
