import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { GatewayError } from '../core/kernel/errors.js';
import type { BodyBounds } from './body-text.js';
import type { ParseAnswer, ParseTask } from './body-worker.js';

/** Bodies waiting for a worker at most: past it a large body is refused at once (503) instead of queued. */
export const BODY_QUEUE_LIMIT = 32;

/** A copy of a parsed value whose objects have no prototype, as every object read from a form or a document. */
function withoutPrototypes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPrototypes);
  if (value === null || typeof value !== 'object') return value;
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) out[k] = withoutPrototypes(v);
  return out;
}

/**
 * Reads large bodies and every XML document off the event loop that serves everyone (http/body-text.ts says
 * which), in worker threads run by piscina: one fewer than the cores (at most 4), started at the first such body
 * and stopped when idle, each reading one body at a time. At most BODY_QUEUE_LIMIT bodies wait for one; past it
 * a body is refused at once (OVERLOADED, 503 with Retry-After), so a flood of large bodies bounds the memory
 * and the delay it can cause. The worker runs the compiled module in production, the TypeScript source through
 * tsx's loader under tsx (tests, `npm run dev`).
 */
export class BodyPool {
  private pool: Piscina | undefined;

  constructor(private readonly size: number = Math.max(1, Math.min(4, availableParallelism() - 1))) {}

  private workers(): Piscina {
    if (!this.pool) {
      const here = import.meta.url;
      const compiled = here.endsWith('.js');
      this.pool = new Piscina({
        filename: new URL(compiled ? './body-worker.js' : './body-worker.ts', here).href,
        ...(compiled ? {} : { execArgv: ['--import', 'tsx'] }),
        minThreads: 0,
        maxThreads: this.size,
        maxQueue: BODY_QUEUE_LIMIT,
        idleTimeout: 30_000,
      });
    }
    return this.pool;
  }

  /** The fields of `text`, read within `bounds`; refusals reject with the GatewayError the reader threw. */
  async parse(text: string, bounds: BodyBounds, kind: 'xml' | 'json' | 'form'): Promise<Record<string, unknown>> {
    const pool = this.workers();
    if (pool.queueSize >= BODY_QUEUE_LIMIT)
      throw new GatewayError('OVERLOADED', 'body: too many large bodies are waiting to be read; try again', 'body', 1);
    let answer: ParseAnswer;
    try {
      answer = (await pool.run({ text, bounds } satisfies ParseTask)) as ParseAnswer;
    } catch (err) {
      if (/queue is at limit/i.test((err as Error).message ?? ''))
        throw new GatewayError('OVERLOADED', 'body: too many large bodies are waiting to be read; try again', 'body', 1);
      // a worker that died with the body: the body is refused as unreadable, the pool starts another
      process.emitWarning(`body worker stopped: ${(err as Error).message}`);
      throw new GatewayError('INVALID_BODY', 'body: could not be read', 'body');
    }
    if ('fields' in answer) return kind === 'json' ? answer.fields : (withoutPrototypes(answer.fields) as Record<string, unknown>);
    if ('refused' in answer) throw new GatewayError(answer.refused.code, answer.refused.message, answer.refused.field);
    throw new GatewayError('INVALID_BODY', 'body: could not be read', 'body');
  }

  /** Stops the workers (tests; the process's exit stops them too). */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }
}

/** The process's pool: every app of the process shares it. */
export const bodyPool = new BodyPool();
