import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadConfig, type Config } from '../../src/config.js';
import { backgroundJobs, composeCore } from '../../src/compose.js';
import type { CoreDeps, Logger } from '../../src/core/ports/deps.js';
import { ManualClock, type IdGenerator } from '../../src/core/kernel/clock.js';
import type { KvStore } from '../../src/store/kv.js';
import { KvGatewayStore } from '../../src/store/gateway-store.js';
import { SandboxConnector } from '../../src/connectors/sandbox/sandbox.js';
import type { AcquirerStatus, CardConnector } from '../../src/core/ports/card-connector.js';
import type { AcquirerEvent } from '../../src/core/acquirers/acquirer-events.js';
import { ADYEN_ENV, STRIPE_ENV, acquirerMerchants } from '../support/acquirers/accounts.js';
import type { NotificationTransport } from '../../src/core/notifications/delivery.js';
import type { BackgroundJob } from '../../src/core/schedule/due-queue.js';
import { FaultPlan, ProcessKv, SimProcess, processConnector, type ReferenceLog } from './faults.js';
import { ACCOUNT_ID, MERCHANT_ID, VAULT_KEY_HEX } from '../support/gateway.js';
import { payoutMerchants } from '../support/payout.js';
import type { AcquirerBook } from '../support/acquirers/books.js';
import type { OwedWebhook } from './webhooks.js';
import { resendNotifications } from '../../src/core/notifications/resend.js';
import { clockOf } from '../../src/core/clocks/clock-deps.js';
import type { Payment } from '../../src/core/records/payment.js';

/** The main account's opening deposit balance (USD hundredths). */
export const OPENING_BALANCE = 150_000;

/** The simulation's clock: a wait passes simulated time at once, so runs never sleep and replay exactly. */
export class SimClock extends ManualClock {
  sleep(ms: number): Promise<void> {
    this.advance(ms);
    return new Promise((resolve) => setImmediate(resolve));
  }
}

/** A small, fast PRNG (mulberry32): the whole run follows from the seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A real acquirer's stub the run's accounts are routed to (test/support/acquirers), and what the simulation
 * needs of it beyond its connector: its own record (the invariants' truth), the shopper's return from its
 * challenge page, and the webhooks it owes (Adyen, which cannot be asked by reference, tells by them).
 */
export interface SimAcquirer {
  code: 'stripe' | 'adyen';
  baseUrl: string;
  /** the acquirer follows the run's clock from now on: what it does later happens in simulated time */
  useClock?: (now: () => number) => void;
  /** the acquirer does what is due by the run's clock (requests that ran on, states that moved on) */
  settle?: () => void;
  /** it still has something to do later (quiescence waits for it) */
  busy?: () => boolean;
  /** when its next move of its own falls due (quiescence moves time on to it) */
  nextDue?: () => number | undefined;
  /** arms the stub's next money-moving request: its answer lost, or acted on `delayMs` later; answers the disarm */
  arm?: (fault: { mode: 'answer-lost' } | { mode: 'act-later'; delayMs: number }) => () => void;
  /** what the acquirer's own records hold for a payment (the money invariants' truth) */
  book?: (transactionId: string) => AcquirerBook;
  /** what the acquirer did under a reference, from its own records (never its connector's status) */
  status: (reference: string) => AcquirerStatus;
  /** the shopper passes or fails the acquirer's challenge page; answers what the return to the gateway carries */
  challengeAnswer?: (transactionId: string, passed: boolean) => string;
  /** the acquirer's webhooks owed since the last call, in the gateway's terms */
  events?: () => AcquirerEvent[];
  /** what the acquirer decided on the dispute of a payment (`won` or `lost`); undefined while it has not */
  disputeDecision?: (transactionId: string) => 'won' | 'lost' | undefined;
  /** every decision the acquirer made on the dispute of a payment, in order (its first, then each reversal) */
  disputeDecisions?: (transactionId: string) => ('won' | 'lost')[];
}

const sharedConfigs = new Map<string, Config>();
/**
 * The test merchants (a manual-capture account and an auto-capture one), as main loads them; with an
 * acquirer, both accounts routed to its connector at its stub (test/support/acquirers).
 */
function config(acquirer?: SimAcquirer): Config {
  const key = acquirer ? `${acquirer.code}:${acquirer.baseUrl}` : '';
  const kept = sharedConfigs.get(key);
  if (kept) return kept;
  const dir = join(tmpdir(), `gw-sim-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, acquirer ? `merchants-${acquirer.code}-${sharedConfigs.size}.json` : 'merchants.json');
  // the main account funds payouts from a deposit balance small enough to run out within a run
  const merchants = payoutMerchants({ USD: OPENING_BALANCE });
  if (acquirer) {
    const routed = acquirerMerchants(acquirer.code, acquirer.baseUrl).merchants[0]!.accounts;
    for (const [i, account] of merchants.merchants[0]!.accounts.entries()) account.routing = routed[i]!.routing;
  }
  writeFileSync(file, JSON.stringify(merchants));
  const loaded = loadConfig({ MERCHANTS_FILE: file, VAULT_KEY: VAULT_KEY_HEX, NOTIFY_ALLOW_PRIVATE: '1', BASE_URL: 'http://gateway.test' });
  sharedConfigs.set(key, loaded);
  return loaded;
}

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

/** Identifiers from counters: the same seed makes the same ids, so a failing seed replays exactly. */
function countingIds(clock: ManualClock): IdGenerator {
  let n = 0;
  const letters = (k: number, width: number) => {
    let out = '';
    for (let i = 0; i < width; i++, k = Math.floor(k / 26)) out = String.fromCharCode(65 + (k % 26)) + out;
    return out;
  };
  const stamp = () => new Date(clock.now()).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return {
    transactionId: () => `${stamp()}S${letters(n++, 7)}`,
    token: () => `tok_SIM${letters(n++, 21)}`,
    notifyId: () => `ntf_${stamp()}${letters(n++, 10)}`,
    recurringId: () => `RC${stamp().slice(0, 8)}T${stamp().slice(8)}${letters(n++, 6)}`,
    opaque: (prefix) => `${prefix}_${letters(n++, 24)}`,
  };
}

export interface Node {
  proc: SimProcess;
  deps: CoreDeps;
  jobs: Map<string, BackgroundJob>;
}

/**
 * One simulated run: a shared store (memory or a real Redis), the sandbox acquirer's ledger in it, a manual
 * clock, counting ids, and gateway processes that may die. Each process is the real core, composed as main
 * composes it, over the shared store.
 */
export class World {
  /** acquirer webhooks owed to the gateway, each with the time it arrives (webhooks.ts) */
  readonly owed: OwedWebhook[] = [];
  /** the merchant's refund orders per payment: each a decision of its own (a resend is the same one) */
  readonly refundIntents = new Map<string, number>();
  readonly clock = new SimClock(Date.UTC(2026, 10, 21, 10, 0, 0));
  readonly ids: IdGenerator;
  readonly plan = new FaultPlan();
  readonly asked: ReferenceLog = new Set();
  readonly random: () => number;
  /** every transaction id the core was handed (payments the simulation never saw answered included) */
  readonly transactions: string[] = [];
  /** every payout request_id the simulation sent */
  readonly payoutRequests = new Set<string>();
  /** the acquirer as it is, read without faults */
  readonly acquirer: Pick<CardConnector, 'status' | 'onClock'>;
  readonly checkStore: KvGatewayStore;
  node: Node;
  private nodes = 0;

  constructor(
    readonly seed: number,
    private readonly kv: KvStore,
    /** a real acquirer's stub: the accounts route to its connector there instead of the sandbox */
    readonly sim?: SimAcquirer,
  ) {
    this.random = prng(seed);
    const ids = countingIds(this.clock);
    this.ids = {
      ...ids,
      transactionId: () => {
        const id = ids.transactionId();
        this.transactions.push(id);
        return id;
      },
    };
    this.checkStore = new KvGatewayStore(kv);
    const now = () => this.clock.now();
    sim?.useClock?.(now);
    if (sim?.arm) this.plan.stubHook = sim.arm;
    this.acquirer = sim
      ? { status: async (reference) => sim.status(reference) }
      : // as the gateway's processes reach it (forMerchant): its records in the merchant's slot, read there
        new SandboxConnector(this.ids, this.checkStore, this.clock).forMerchant(MERCHANT_ID);
    this.node = this.spawn();
  }

  /**
   * The acquirer as a payment's time sees it: a test clock's payment in the clock's time (the sandbox's timed
   * cards answer by it), any other in the run's.
   */
  async acquirerAt(p: Payment | undefined): Promise<Pick<CardConnector, 'status'>> {
    const now = await this.timeOf(p);
    return now === undefined || !this.acquirer.onClock ? this.acquirer : this.acquirer.onClock({ now: () => now });
  }

  /** A test clock's time for its payment; undefined for a payment in the run's time. */
  async timeOf(p: Payment | undefined): Promise<number | undefined> {
    const id = p && clockOf(p);
    return id === undefined ? undefined : (await this.checkStore.getTestClock(MERCHANT_ID, id))?.frozen_time;
  }

  /** A fresh gateway process over the same store (after a crash, or another node of the cluster). */
  spawn(): Node {
    const proc = new SimProcess(`p${this.nodes++}`);
    const store = new KvGatewayStore(new ProcessKv(this.kv, proc, this.plan));
    const deps = composeCore(config(this.sim), quiet, {
      store,
      clock: this.clock,
      ids: this.ids,
      transport: this.transport(proc),
      wrapConnector: (sandbox) => processConnector(sandbox, proc, this.plan, this.asked),
      wrapAcquirer: (acquirer) => processConnector(acquirer, proc, this.plan, this.asked),
      env: { ...STRIPE_ENV, ...ADYEN_ENV },
    });
    const jobs = new Map(backgroundJobs(deps, config(this.sim)).map((j) => [j.name, j]));
    return { proc, deps, jobs };
  }

  /**
   * The merchant's notification server: it answers 200, unless the plan says it refuses this POST, or that
   * the merchant has the same notification resent (through another process) before the answer arrives.
   */
  private transport(proc: SimProcess): NotificationTransport {
    return {
      resolve: async () => ['203.0.113.10'],
      post: async (req) => {
        if (proc.dead) return new Promise(() => undefined);
        const f = this.plan.takeTransport();
        if (f?.mode === 'refuse') return { ok: false, status: 500, error: 'HTTP 500' };
        if (f?.mode === 'resend-meanwhile') {
          const form = new URLSearchParams(req.body);
          const other = this.spawn();
          const account = other.deps.merchants.find(MERCHANT_ID, form.get('account_id') ?? ACCOUNT_ID)!;
          const notifyId = form.get('notify_id') ?? '';
          await Promise.race([resendNotifications(other.deps, account, notifyId, '').catch(() => undefined), other.proc.died]);
        }
        return { ok: true, status: 200 };
      },
    };
  }

  get deps(): CoreDeps {
    return this.node.deps;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  /**
   * Runs a step on the current process. When the process dies under it, the step's in-flight work is
   * dropped and a new process takes over (recovery starts fresh there).
   */
  async run<T>(
    step: (deps: CoreDeps) => Promise<T>,
  ): Promise<{ kind: 'done'; value: T } | { kind: 'threw'; error: Error } | { kind: 'died' }> {
    const node = this.node;
    const outcome = await Promise.race([
      step(node.deps).then(
        (value) => ({ kind: 'done' as const, value }),
        (error: unknown) => ({ kind: 'threw' as const, error: error as Error }),
      ),
      node.proc.died.then(() => ({ kind: 'died' as const })),
    ]);
    if (node.proc.dead && this.node === node) this.node = this.spawn();
    return outcome;
  }

  /** Runs a background job of the current process once (its failures are the job's own: logged, requeued). */
  async job(name: string): Promise<void> {
    await this.run((_deps) => this.node.jobs.get(name)!.runOnce());
  }
}
