import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { GatewayError } from '../core/kernel/errors.js';
import type { BodyBounds } from './body-text.js';
import type { ParseAnswer, ParseTask } from './body-worker.js';

interface Waiting {
  task: ParseTask;
  kind: 'xml' | 'json' | 'form';
  resolve: (fields: Record<string, unknown>) => void;
  reject: (err: unknown) => void;
}

/**
 * The body worker's module: the compiled file beside this one, or under tsx (tests, `npm run dev`) the
 * TypeScript source, loaded through tsx's loader, which a worker does not inherit.
 */
function startWorker(): Worker {
  const here = import.meta.url;
  if (here.endsWith('.js')) return new Worker(new URL('./body-worker.js', here));
  const source = JSON.stringify(new URL('./body-worker.ts', here).href);
  return new Worker(`import('tsx/esm/api').then((tsx) => tsx.register()).then(() => import(${source}))`, { eval: true });
}

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
 * which): a few worker threads, started at the first such body, each reading one body at a time, the others
 * waiting in order. A worker that dies is replaced; the body it held is refused as unreadable.
 */
export class BodyPool {
  private idle: Worker[] = [];
  private busy = new Map<Worker, Waiting>();
  private queue: Waiting[] = [];
  private started = 0;
  private nextId = 0;

  constructor(private readonly size: number = Math.max(1, Math.min(4, availableParallelism() - 1))) {}

  /** The fields of `text`, read within `bounds`; refusals reject with the GatewayError the reader threw. */
  parse(text: string, bounds: BodyBounds, kind: 'xml' | 'json' | 'form'): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task: { id: this.nextId++, text, bounds }, kind, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.started < this.size ? this.spawn() : undefined);
      if (!worker) return;
      const waiting = this.queue.shift()!;
      this.busy.set(worker, waiting);
      worker.postMessage(waiting.task);
    }
  }

  private spawn(): Worker {
    const worker = startWorker();
    this.started++;
    worker.unref();
    worker.on('message', (answer: ParseAnswer) => {
      const waiting = this.busy.get(worker);
      this.busy.delete(worker);
      this.idle.push(worker);
      if (waiting) settle(waiting, answer);
      this.dispatch();
    });
    const lost = (err: unknown) => {
      const waiting = this.busy.get(worker);
      this.busy.delete(worker);
      this.idle = this.idle.filter((w) => w !== worker);
      this.started--;
      waiting?.reject(new GatewayError('INVALID_BODY', 'body: could not be read', 'body'));
      if (err instanceof Error) process.emitWarning(`body worker stopped: ${err.message}`);
      this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => {
      if (this.busy.has(worker) || this.idle.includes(worker)) lost(new Error(`exit ${code}`));
    });
    return worker;
  }

  /** Stops the workers (tests; the process's exit stops them too). */
  async close(): Promise<void> {
    const all = [...this.idle, ...this.busy.keys()];
    this.idle = [];
    this.busy.clear();
    await Promise.all(all.map((w) => w.terminate()));
  }
}

function settle(waiting: Waiting, answer: ParseAnswer): void {
  if ('fields' in answer) {
    waiting.resolve(waiting.kind === 'json' ? answer.fields : (withoutPrototypes(answer.fields) as Record<string, unknown>));
  } else if ('refused' in answer) {
    waiting.reject(new GatewayError(answer.refused.code, answer.refused.message, answer.refused.field));
  } else {
    waiting.reject(new GatewayError('INVALID_BODY', 'body: could not be read', 'body'));
  }
}

/** The process's pool: every app of the process shares it. */
export const bodyPool = new BodyPool();
