import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * What a stub acquirer does to the next matching request, on demand:
 * - `act-then-drop`: acts (the charge, capture, ... is made) and drops the connection without an answer,
 *   as a timeout after the acquirer acted;
 * - `drop-then-act`: drops the connection at once and acts only when the test says (`actDeferred`), as a
 *   request held by a proxy and forwarded after the caller gave up: a read meanwhile does not show it;
 * - `drop`: drops the connection without acting (no answer at all);
 * - `5xx`: answers 500 without acting;
 * - `in-progress`: answers what the acquirer answers a key whose first request is still running, without acting;
 * - `act-later`: drops the connection without an answer and acts `delayMs` later on the stub's clock, as a
 *   request still running at the acquirer when the caller gave up on it; meanwhile a request under the same
 *   Idempotency-Key is answered as a key still in progress, and afterwards with the first result.
 */
export type StubFault = 'act-then-drop' | 'drop-then-act' | 'drop' | '5xx' | 'in-progress' | 'act-later';

export interface StubAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface StubRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  raw: string;
}

/**
 * A loopback HTTP server for an acquirer's stub (test/support/acquirers): answers from `handle`, honours
 * Idempotency-Key as the real APIs do (the same key and request answer the first response; another request
 * under a used key is refused by `conflict`; one while the key's first request still runs gets `inProgress`),
 * and fails on demand (`fail`, `down`). Its clock is real time unless a test gives it one (`clock`): what it
 * was asked to do later (`later`) is done once that clock has passed its time, before the next request.
 */
export class StubServer {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly faults: { match: (r: StubRequest) => boolean; fault: StubFault; delayMs: number }[] = [];
  private readonly idempotent = new Map<string, { fingerprint: string; answer: StubAnswer }>();
  /** Idempotency-Keys whose first request is still running (act-later) */
  private readonly running = new Set<string>();
  private readonly timed: { at: number; seq: number; act: () => void }[] = [];
  private timedSeq = 0;
  private isDown = false;
  /** requests dropped by `drop-then-act`, not acted on yet */
  private readonly deferred: StubRequest[] = [];
  /** every request received, in order (method and path) */
  readonly requests: string[] = [];
  baseUrl = '';
  /** the acquirer's clock (ms): real time, or a test's simulated clock (useClock) */
  private clock: () => number = Date.now;
  /** the time of what is being done late (settle): what it makes is dated then, not when it was noticed */
  private actingAt: number | undefined;

  /** The acquirer's time: its clock's, or, while it does what fell due earlier, that moment's. */
  now(): number {
    return this.actingAt ?? this.clock();
  }

  useClock(now: () => number): void {
    this.clock = now;
  }

  constructor(
    private readonly handle: (req: StubRequest) => StubAnswer,
    private readonly conflict: (key: string) => StubAnswer,
    private readonly inProgress: (key: string) => StubAnswer = conflict,
  ) {}

  /** Does `act` once the clock has passed `delayMs` from now (at the next `settle`: before any request, or when asked). */
  later(delayMs: number, act: () => void): void {
    this.timed.push({ at: this.now() + delayMs, seq: this.timedSeq++, act });
  }

  /** Does what is due by the clock, in time order, each at its own time. */
  settle(): void {
    for (;;) {
      const due = this.timed.filter((d) => d.at <= this.clock()).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) return;
      this.timed.splice(this.timed.indexOf(due), 1);
      this.actingAt = due.at;
      try {
        due.act();
      } finally {
        this.actingAt = undefined;
      }
    }
  }

  /** Something is still to be done later (a request still running, a state still to move). */
  get busy(): boolean {
    return this.timed.length > 0;
  }

  /** When the next thing to do later falls due (undefined: nothing is). */
  get nextDue(): number | undefined {
    return this.timed.length > 0 ? Math.min(...this.timed.map((d) => d.at)) : undefined;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.serve(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /**
   * The next `times` requests `match` accepts (any, by default) meet `fault`. Stripe's SDK sends a request
   * whose connection closed once more by itself (under the same Idempotency-Key): a lost answer is two drops.
   */
  fail(fault: StubFault, match: (r: StubRequest) => boolean = () => true, times = 1, delayMs = 0): void {
    for (let i = 0; i < times; i++) this.faults.push({ match, fault, delayMs });
  }

  /** Faults armed and not met yet are dropped (a test that failed early leaves none for the next). */
  clearFaults(): void {
    this.faults.length = 0;
  }

  /**
   * While refusing, the stub listens no more: every connection is refused (no request reaches it), as an
   * acquirer whose address answers with a reset. `refuse(false)` listens again on the same port.
   */
  async refuse(refuse = true): Promise<void> {
    const server = this.server!;
    if (!refuse) return new Promise<void>((resolve) => server.listen(Number(new URL(this.baseUrl).port), '127.0.0.1', resolve));
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
    // clients' pooled connections see their close before the next request (else: a hang-up, not a refusal)
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /**
   * The requests `drop-then-act` held, acted on now in the order they came (each under its Idempotency-Key, as
   * the acquirer would take it): how many were.
   */
  actDeferred(): number {
    const held = this.deferred.splice(0);
    for (const request of held) this.answer(request);
    return held.length;
  }

  /** While down, every request is dropped unanswered (the acquirer unreachable). */
  down(down = true): void {
    this.isDown = down;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://stub');
    const request: StubRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      raw: Buffer.concat(chunks).toString('utf8'),
    };
    this.requests.push(`${request.method} ${request.path}`);
    this.settle();
    if (this.isDown) return void req.socket.destroy();
    const i = this.faults.findIndex((f) => f.match(request));
    const armed = i >= 0 ? this.faults.splice(i, 1)[0]! : undefined;
    const fault = armed?.fault;
    if (fault === 'drop') return void req.socket.destroy();
    if (fault === 'drop-then-act') {
      this.deferred.push(request);
      return void req.socket.destroy();
    }
    if (fault === 'in-progress') return this.send(res, this.inProgress(String(request.headers['idempotency-key'] ?? '')));
    if (fault === 'act-later') return this.actLater(request, res, armed!.delayMs);
    if (fault === '5xx') return this.send(res, { status: 500, body: { error: { type: 'api_error', message: 'stub: server error' } } });
    const answer = this.answer(request);
    if (fault === 'act-then-drop') return void req.socket.destroy();
    this.send(res, answer);
  }

  /**
   * The request is taken and left running: the caller hears nothing (the connection drops), and it acts
   * `delayMs` later. A key already running or answered is answered as usual (it is not a first request).
   */
  private actLater(request: StubRequest, res: ServerResponse, delayMs: number): void {
    const key = request.headers['idempotency-key'];
    if (typeof key === 'string' && request.method === 'POST') {
      if (this.running.has(key) || this.idempotent.has(key)) return this.send(res, this.answer(request));
      this.running.add(key);
    }
    res.socket?.destroy();
    this.later(delayMs, () => {
      if (typeof key === 'string') this.running.delete(key);
      this.answer(request);
    });
  }

  private answer(request: StubRequest): StubAnswer {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || request.method !== 'POST') return this.handle(request);
    const fingerprint = `${request.path}\n${request.raw}`;
    if (this.running.has(key)) return this.inProgress(key);
    const first = this.idempotent.get(key);
    if (first) return first.fingerprint === fingerprint ? first.answer : this.conflict(key);
    const answer = this.handle(request);
    // as the real APIs: a 5xx is not kept under the key (the request may be tried again); what is kept is the
    // answer as it was given, not the object as it stands later (a replay names the first state, not a void since)
    if (answer.status < 500) this.idempotent.set(key, { fingerprint, answer: structuredClone(answer) });
    return answer;
  }

  private send(res: ServerResponse, answer: StubAnswer): void {
    const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(body);
  }
}

/**
 * What the two acquirer stubs share: their loopback server (Idempotency-Key, faults), its address, start and
 * stop, a sequence for the ids they make, and the acquirer's own 3-D Secure page at `/challenge/<id>`, which
 * the shopper's browser is sent to: GET shows it with two buttons, POST (`result` pass or fail) finishes the
 * challenge at the acquirer and sends the shopper back to the address the payment named, with the acquirer's
 * parameters (`challengeFinished`).
 */
export abstract class AcquirerStub {
  readonly server: StubServer;
  protected seq = 0;

  constructor(
    /** the acquirer's name on its challenge page */
    private readonly acquirer: string,
    conflict: (key: string) => StubAnswer,
    inProgress?: (key: string) => StubAnswer,
  ) {
    this.server = new StubServer((r) => (r.path.startsWith('/challenge/') ? this.challenge(r) : this.handle(r)), conflict, inProgress);
  }

  get baseUrl(): string {
    return this.server.baseUrl;
  }

  /** The acquirer's clock from now on (a simulation's): what it does later follows that clock. */
  useClock(now: () => number): void {
    this.server.useClock(now);
  }

  /** Its clock's time. */
  protected now(): number {
    return this.server.now();
  }

  /** What the acquirer was to do by now is done (requests that ran on, states that moved on their own). */
  settle(): void {
    this.server.settle();
  }

  /** The acquirer still has something to do later. */
  get busy(): boolean {
    return this.server.busy;
  }

  /** When the acquirer's next move of its own falls due (undefined: none is to come). */
  get nextDue(): number | undefined {
    return this.server.nextDue;
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  /** The acquirer's API (every path but its challenge pages). */
  protected abstract handle(r: StubRequest): StubAnswer;

  /** Finishes the challenge `id` as the shopper chose; answers the return address with the acquirer's parameters. */
  protected abstract challengeFinished(id: string, passed: boolean): string | undefined;

  private challenge(r: StubRequest): StubAnswer {
    const id = decodeURIComponent(r.path.slice('/challenge/'.length));
    const html = { 'content-type': 'text/html; charset=utf-8' };
    if (r.method === 'GET')
      return {
        status: 200,
        headers: html,
        body:
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${this.acquirer} 3-D Secure test page</title></head>` +
          `<body><h1>${this.acquirer}: 3-D Secure test payment</h1><form method="post">` +
          '<button name="result" value="pass">Complete authentication</button> ' +
          '<button name="result" value="fail">Fail authentication</button></form></body></html>',
      };
    const back = this.challengeFinished(id, new URLSearchParams(r.raw).get('result') === 'pass');
    if (!back) return { status: 404, headers: html, body: '<!doctype html><title>No such challenge</title>' };
    return { status: 303, headers: { ...html, location: back }, body: '' };
  }
}
