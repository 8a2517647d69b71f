import express, { type Express } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Answer } from './check.js';

/**
 * What the answer check saw in this test process, shared through globalThis. The answers are kept as they
 * were sent and checked after the test (takeAnswerProblems): the checker and the document are loaded only
 * then, so the setup file loads none of the gateway's modules before a test file's vi.mock takes effect.
 */
interface ContractState {
  /** answers not yet checked */
  pending: Answer[];
  /** answers checked in this process */
  checked: number;
  installed: boolean;
}

const STATE = Symbol.for('payment-gateway.answer-contract');
export function contractState(): ContractState {
  const holder = globalThis as unknown as Record<symbol, ContractState | undefined>;
  return (holder[STATE] ??= { pending: [], checked: 0, installed: false });
}

/** Bodies past this size are not kept whole (none of the gateway's answers comes near it). */
const MAX_BODY = 8 * 1024 * 1024;

interface Layer {
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Whether a router (at any depth) has a GET route of `path`. */
function routes(stack: Layer[] | undefined, path: string): boolean {
  return (stack ?? []).some((l) => (l.route ? l.route.path === path && l.route.methods.get === true : routes(l.handle?.stack, path)));
}

/** Whether an app is the gateway: it serves the document it is checked against. */
const servesDocument = new WeakMap<object, boolean>();
function isGateway(app: Express): boolean {
  let known = servesDocument.get(app);
  if (known === undefined) {
    known = routes((app as unknown as { router: { stack: Layer[] } }).router.stack, '/openapi.json');
    servesDocument.set(app, known);
  }
  return known;
}

type Chunk = string | Buffer | Uint8Array;
const toBuffer = (chunk: Chunk, encoding?: unknown): Buffer =>
  typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk);

/** Keeps what the app writes on `res` and, once the answer ends, the answer for the check after the test. */
export function watchAnswer(req: IncomingMessage, res: ServerResponse): void {
  const method = req.method ?? 'GET';
  const path = (req.url ?? '/').split('?')[0]!;
  const chunks: Buffer[] = [];
  let size = 0;
  const keep = (chunk: unknown, encoding?: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function' || size > MAX_BODY) return;
    const b = toBuffer(chunk as Chunk, encoding);
    size += b.length;
    chunks.push(b);
  };
  const write = res.write;
  const end = res.end;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse['write'];
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    const out = (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    contractState().pending.push({
      method,
      path,
      status: res.statusCode,
      headers: { ...(res.getHeaders() as Answer['headers']) },
      body: size > MAX_BODY ? Buffer.alloc(0) : Buffer.concat(chunks),
    });
    return out;
  } as ServerResponse['end'];
}

/**
 * Installs the check on every Express app made from now on in this process: an app that serves
 * /openapi.json (the gateway, however a test builds it) has each answer checked against that document. The
 * hook is Express's own entry point (`app.handle`), so supertest, a listening server and fetch all pass it.
 */
export function installAnswerCheck(): void {
  const state = contractState();
  if (state.installed) return;
  state.installed = true;
  const application = express.application as unknown as {
    handle: (this: Express, req: IncomingMessage, res: ServerResponse, next?: unknown) => void;
  };
  const handle = application.handle;
  application.handle = function (this: Express, req, res, next) {
    if (isGateway(this)) watchAnswer(req, res);
    return handle.call(this, req, res, next);
  };
}

/** The problems of the answers given since the last call (a test that checks the checker reads them here). */
export async function takeAnswerProblems(): Promise<string[]> {
  const state = contractState();
  const answers = state.pending.splice(0);
  if (answers.length === 0) return [];
  const { answerProblems } = await import('./check.js');
  state.checked += answers.length;
  return answers.flatMap((answer) => {
    try {
      return answerProblems(answer);
    } catch (err) {
      return [`${answer.method} ${answer.path}: the answer check itself failed: ${(err as Error).stack ?? String(err)}`];
    }
  });
}
