import type { CommitResult, Condition, KvStore, Write } from '../../src/store/kv.js';
import type { CardAuthorisation, CardConnector, DisputeOperations } from '../../src/core/ports/card-connector.js';
import { GatewayError } from '../../src/core/kernel/errors.js';
import type { Clock } from '../../src/core/kernel/clock.js';

/**
 * The faults the simulation injects at the step boundaries of a money flow (issue 36, build 9). One fault is
 * armed at a time; the first call it matches consumes it.
 */
/** `dispute`: a dispute's evidence or acceptance sent to the acquirer */
export type ConnectorOp = 'authorise' | 'completeChallenge' | 'capture' | 'void' | 'refund' | 'dispute';

export type Fault =
  /** the connector call throws without acting (a refused connection) or after acting (a timeout on the answer) */
  | { where: 'connector'; op: ConnectorOp | 'any'; mode: 'throw-before' | 'throw-after'; statusDown?: boolean }
  /** the connector acts, then answers only after its claim went stale and another process ran recovery */
  | { where: 'connector'; op: ConnectorOp | 'any'; mode: 'late' }
  /**
   * at a real acquirer's stub: the request reaches the acquirer, whose answer is lost (`answer-lost`: it acted
   * at once), or which acts only `delayMs` later while the caller has given up (`act-later`: a request under
   * the same key meanwhile is answered "in progress")
   */
  | { where: 'connector'; op: ConnectorOp | 'any'; mode: 'answer-lost' }
  | { where: 'connector'; op: ConnectorOp | 'any'; mode: 'act-later'; delayMs: number }
  /** the process dies just before the connector acts, or after it acted and before the answer is read */
  | { where: 'connector'; op: ConnectorOp | 'any'; mode: 'crash-before' | 'crash-after' }
  /** the acquirer's status cannot be read (throws) while the fault is armed: not consumed by a call */
  | { where: 'status'; mode: 'down' }
  /** the nth commit from now throws before or after being applied, or the process dies there */
  | { where: 'commit'; nth: number; mode: 'before' | 'after' | 'crash-before' | 'crash-after' }
  /**
   * the nth commit from now carries one write the store refuses (a score that is not a number), after its
   * first write: an all-or-nothing store refuses the whole commit, a store that checks as it writes leaves
   * the writes before it in place (finding 6)
   */
  | { where: 'commit'; nth: number; mode: 'bad-write' }
  /**
   * the nth commit is applied on the primary, which dies before a replica confirms it: the caller hears a
   * timeout, the store answers nothing until a replica is promoted, and the promoted replica never had the
   * commit (the store is rolled back to before it; the acquirer, elsewhere, keeps what it did)
   */
  | { where: 'commit'; nth: number; mode: 'unconfirmed-lost' }
  /**
   * a notification POST: refused by the merchant's server, or answered only after the merchant had the same
   * notification resent meanwhile (between the worker's read and the removal of its queue entry)
   */
  | { where: 'transport'; mode: 'refuse' | 'resend-meanwhile' };

/** What a store or connector raises when it cannot answer: an unknown outcome to the caller. */
export class SimTimeout extends GatewayError {
  constructor(what: string) {
    super('STORE_UNAVAILABLE', `simulated fault: ${what}`);
  }
}

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** One gateway process of the simulation: when it dies, every call it makes from then on never returns. */
export class SimProcess {
  dead = false;
  private onDeath: (() => void) | undefined;
  readonly died: Promise<'died'>;
  constructor(readonly name: string) {
    this.died = new Promise((resolve) => (this.onDeath = () => resolve('died')));
  }
  die(): Promise<never> {
    this.dead = true;
    this.onDeath?.();
    return never();
  }
}

/** The armed fault, shared by every process of one simulated run. */
export class FaultPlan {
  armed: Fault | undefined;
  /** commits seen since the fault was armed */
  private commits = 0;
  /** run before a 'late' connector answer is handed back (the simulation runs recovery elsewhere meanwhile) */
  lateHook: () => Promise<void> = async () => undefined;
  /**
   * arms an acquirer stub's fault on its next money-moving request (`answer-lost`, `act-later`); answers the
   * disarm, for a call that never sent one
   */
  stubHook: (f: Extract<Fault, { mode: 'answer-lost' | 'act-later' }>) => () => void = () => () => undefined;
  fired: string[] = [];

  /** the acquirer's status cannot be read until the plan is disarmed */
  private statusOut = false;
  /** the store's primary died: nothing answers until the failover (the start of the next step) */
  storeDown = false;
  /** what the replica had when the primary died, restored at the failover */
  failover: (() => void) | undefined;

  arm(f: Fault | undefined): void {
    this.armed = f;
    this.commits = 0;
    this.statusOut = f?.where === 'status' || (f?.where === 'connector' && 'statusDown' in f && f.statusDown === true);
  }

  /** The connector fault for this call, consumed. */
  takeConnector(op: ConnectorOp): Extract<Fault, { where: 'connector' }> | undefined {
    const f = this.armed;
    if (f?.where !== 'connector' || (f.op !== 'any' && f.op !== op)) return undefined;
    this.armed = undefined;
    this.fired.push(`${op}:${f.mode}`);
    return f;
  }

  takeTransport(): Extract<Fault, { where: 'transport' }> | undefined {
    const f = this.armed;
    if (f?.where !== 'transport') return undefined;
    this.armed = undefined;
    this.fired.push(`transport:${f.mode}`);
    return f;
  }

  statusDown(): boolean {
    return this.statusOut;
  }

  takeCommit(): Extract<Fault, { where: 'commit' }> | undefined {
    const f = this.armed;
    if (f?.where !== 'commit') return undefined;
    this.commits++;
    if (this.commits < f.nth) return undefined;
    this.armed = undefined;
    this.fired.push(`commit:${f.mode}`);
    return f;
  }
}

/**
 * The store as one process sees it: commits fail as the plan says, and a dead process's calls never return
 * (its in-flight work is dropped, as when the process is killed).
 */
export class ProcessKv implements KvStore {
  constructor(
    private readonly kv: KvStore,
    private readonly proc: SimProcess,
    private readonly plan: FaultPlan,
  ) {}

  private live<T>(run: () => Promise<T>): Promise<T> {
    if (this.proc.dead) return never();
    if (this.plan.storeDown) return Promise.reject(new SimTimeout('the store has no primary'));
    return run().then((v) => (this.proc.dead ? never<T>() : v));
  }

  async commit(conditions: readonly Condition[], writes: readonly Write[]): Promise<CommitResult> {
    if (this.proc.dead) return never();
    if (this.plan.storeDown) throw new SimTimeout('the store has no primary');
    const f = this.plan.takeCommit();
    if (!f) return this.live(() => this.kv.commit(conditions, writes));
    switch (f.mode) {
      case 'before':
        throw new SimTimeout('commit not applied');
      case 'crash-before':
        return this.proc.die();
      case 'after':
        await this.kv.commit(conditions, writes);
        throw new SimTimeout('commit applied, answer lost');
      case 'crash-after':
        await this.kv.commit(conditions, writes);
        return this.proc.die();
      case 'unconfirmed-lost': {
        const replica = snapshot(this.kv);
        await this.kv.commit(conditions, writes);
        this.plan.storeDown = true;
        this.plan.failover = () => restoreGatewayState(this.kv, replica);
        throw new SimTimeout('commit not confirmed by a replica');
      }
      case 'bad-write': {
        // a write after the first that the store refuses: a zadd whose score is not a number
        const at = writes.findIndex((w, i) => i > 0 && w.op === 'zadd');
        if (at < 0) return this.live(() => this.kv.commit(conditions, writes));
        const bad = writes.map((w, i) => (i === at ? { ...w, score: Number.NaN } : w));
        return this.live(() => this.kv.commit(conditions, bad));
      }
    }
  }

  get: KvStore['get'] = (key) => this.live(() => this.kv.get(key));
  getMany: KvStore['getMany'] = (keys) => this.live(() => this.kv.getMany(keys));
  range: KvStore['range'] = (key, min, max, limit, reverse) => this.live(() => this.kv.range(key, min, max, limit, reverse));
  countInWindow: KvStore['countInWindow'] = (key, ms) => this.live(() => this.kv.countInWindow(key, ms));
  count: KvStore['count'] = (key) => this.live(() => this.kv.count(key));
  putOnce: KvStore['putOnce'] = (key, data, formerKey) => this.live(() => this.kv.putOnce(key, data, formerKey));
  getOnce: KvStore['getOnce'] = (key, formerKey) => this.live(() => this.kv.getOnce(key, formerKey));
  counters: KvStore['counters'] = (key) => this.live(() => this.kv.counters(key));
  ping: KvStore['ping'] = () => this.live(() => this.kv.ping());
  close: KvStore['close'] = async () => undefined;
}

/** Every acquirer reference the connector was asked under, whatever became of the call. */
export type ReferenceLog = Set<string>;

/**
 * How many operations the runs asked of the sandbox to ride in their outcome's commit (authoriseInCommit,
 * captureInCommit): the path is run, not only the other.
 */
export const askedInCommit = { authorise: 0, capture: 0 };

/** The sandbox connector as one process reaches it, with the plan's faults. */
export function processConnector(inner: CardConnector, proc: SimProcess, plan: FaultPlan, asked: ReferenceLog): CardConnector {
  const call = async <T>(op: ConnectorOp, reference: string, act: () => Promise<T>): Promise<T> => {
    if (proc.dead) return never();
    const f = plan.takeConnector(op);
    if (f?.mode === 'throw-before') throw new SimTimeout(`${op} refused before acting`);
    if (f?.mode === 'crash-before') return proc.die();
    asked.add(reference);
    if (f?.mode === 'answer-lost' || f?.mode === 'act-later') {
      // the stub loses the answer or acts later: the call throws as the connector meets it (or, with nothing sent, answers)
      const disarm = plan.stubHook(f);
      try {
        const answer = await act();
        return proc.dead ? never() : answer;
      } finally {
        disarm();
      }
    }
    const answer = await act();
    if (proc.dead) return never();
    switch (f?.mode) {
      case 'throw-after':
        throw new SimTimeout(`${op} acted, answer lost`);
      case 'crash-after':
        return proc.die();
      case 'late':
        await plan.lateHook();
        return answer;
      default:
        return answer;
    }
  };
  // the sandbox scoped to a merchant keeps its records in the gateway's store: its authorisations and
  // captures then ride in the outcome's commit, through this process's store and its faults
  const scoped = new Map<string, CardConnector>();
  const forMerchant = inner.forMerchant?.bind(inner);
  const authoriseInCommit = inner.authoriseInCommit?.bind(inner);
  const captureInCommit = inner.captureInCommit?.bind(inner);
  const endChallenge = inner.endChallenge?.bind(inner);
  return {
    code: inner.code,
    displayName: inner.displayName,
    ...(forMerchant
      ? {
          forMerchant: (m: string) => {
            let c = scoped.get(m);
            if (!c) scoped.set(m, (c = processConnector(forMerchant(m), proc, plan, asked)));
            return c;
          },
        }
      : {}),
    ...(authoriseInCommit
      ? {
          authoriseInCommit: (req: CardAuthorisation) => {
            askedInCommit.authorise++;
            return call('authorise', req.reference, () => authoriseInCommit(req));
          },
        }
      : {}),
    ...(captureInCommit
      ? {
          captureInCommit: (ref: string, amount: number, currency: string, reference: string) => {
            askedInCommit.capture++;
            return call('capture', reference, () => captureInCommit(ref, amount, currency, reference));
          },
        }
      : {}),
    ...(inner.onClock ? { onClock: (clock: Clock) => processConnector(inner.onClock!(clock), proc, plan, asked) } : {}),
    ...(inner.disputes ? { disputes: processDisputes(inner.disputes, proc, call) } : {}),
    ...(inner.repeatIsStatus ? { repeatIsStatus: true } : {}),
    ...(inner.ownChallengePage ? { ownChallengePage: true } : {}),
    // ending a challenge at the acquirer reads the authorisation and voids it: the void's faults
    ...(endChallenge
      ? { endChallenge: (ref: string, reference: string) => call('void', reference, () => endChallenge(ref, reference)) }
      : {}),
    authorise: (req) => call('authorise', req.reference, () => inner.authorise(req)),
    completeChallenge: (ref, code, reference) => call('completeChallenge', reference, () => inner.completeChallenge(ref, code, reference)),
    capture: (ref, amount, currency, reference) => call('capture', reference, () => inner.capture(ref, amount, currency, reference)),
    void: (ref, reference) => call('void', reference, () => inner.void(ref, reference)),
    refund: (ref, amount, currency, reference) => call('refund', reference, () => inner.refund(ref, amount, currency, reference)),
    status: async (reference) => {
      if (proc.dead) return never();
      if (plan.statusDown()) throw new SimTimeout('status unavailable');
      return inner.status(reference);
    },
  };
}

/**
 * The connector's dispute operations as this process reaches them: nothing answers once it has died, and the
 * evidence and the acceptance meet the plan's connector faults (`dispute`) as the other calls do.
 */
function processDisputes(
  inner: DisputeOperations,
  proc: SimProcess,
  call: <T>(op: ConnectorOp, reference: string, act: () => Promise<T>) => Promise<T>,
): DisputeOperations {
  const alive = async <T>(act: () => Promise<T>): Promise<T> => {
    if (proc.dead) return never();
    const answer = await act();
    return proc.dead ? never() : answer;
  };
  return {
    watches: (ref) => inner.watches(ref),
    since: (ref, since) => alive(() => inner.since(ref, since)),
    submitEvidence: (ref, evidence, reference) => call('dispute', reference, () => inner.submitEvidence(ref, evidence, reference)),
    accept: (ref, reference) => call('dispute', reference, () => inner.accept(ref, reference)),
  };
}

/** A copy of the in-memory store's state (its own fields: records, sorted sets, counters). */
function snapshot(kv: KvStore): Record<string, unknown> {
  return structuredClone(Object.fromEntries(Object.entries(kv)));
}

/**
 * The in-memory store as the promoted replica has it: the gateway's records as they were at the snapshot; the
 * sandbox acquirer's ledger (keys acq:...), which stands for another company's system, as it is now.
 */
function restoreGatewayState(kv: KvStore, replica: Record<string, unknown>): void {
  const now = kv as unknown as Record<string, unknown>;
  for (const [field, was] of Object.entries(replica)) {
    const current = now[field];
    const restored = structuredClone(was);
    if (current instanceof Map && restored instanceof Map) {
      for (const [key, value] of current) if (typeof key === 'string' && key.startsWith('acq:')) restored.set(key, value);
    }
    now[field] = restored;
  }
}
