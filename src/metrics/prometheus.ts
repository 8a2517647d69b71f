import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { GatewayMetrics } from '../core/ports/metrics.js';
import type { DueQueue, GatewayStore } from '../core/ports/store.js';
import type { MerchantDirectory } from '../core/records/directory.js';
import type { Clock } from '../core/kernel/clock.js';
import { STORE_ERROR_KINDS, type StoreErrorKind, type StoreHealth } from '../store/store-health.js';

/**
 * The due queues whose size is published; the outbox one is also gateway_notifications_pending, and
 * pending_resolve holds the payments and operations whose outcome is not recorded yet (recovery's queue).
 */
const QUEUES: readonly DueQueue[] = ['outbox', 'auth_expiry', 'threeds_challenge', 'contract_charge', 'payout', 'pending_resolve'];

/** How long a scrape waits for the store's backlog before it answers the last values read. */
const BACKLOG_WAIT_MS = 250;

interface Sources {
  store: Pick<GatewayStore, 'dueCount' | 'due'>;
  merchants: Pick<MerchantDirectory, 'merchantIds'>;
  clock: Clock;
  /** the store's connection and errors as the process saw them (absent: not published) */
  storeHealth?: StoreHealth;
}

interface BacklogValues {
  /** items in each queue */
  items: Map<DueQueue, number>;
  /** seconds the most overdue item of each queue has been due (0: none late) */
  overdue: Map<DueQueue, number>;
}

/**
 * The backlog read from the store for a scrape, at most one read at a time. A scrape waits BACKLOG_WAIT_MS
 * for it, then answers the last values read and their age: /metrics answers from the process alone, whatever
 * the store's state.
 */
class Backlog {
  last: BacklogValues | undefined;
  /** when `last` was read (clock time) */
  readAt = 0;
  private reading: Promise<void> | undefined;

  constructor(private readonly sources: Sources) {}

  async refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.reading.catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, BACKLOG_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  private async read(): Promise<void> {
    const { store, merchants, clock } = this.sources;
    const now = clock.now();
    const items = new Map<DueQueue, number>();
    const overdue = new Map<DueQueue, number>();
    for (const queue of QUEUES) {
      let total = 0;
      let oldest = now;
      for (const m of merchants.merchantIds()) {
        total += await store.dueCount(m, queue);
        if (queue === 'outbox' || queue === 'pending_resolve') {
          const [first] = await store.due(m, queue, now, 1);
          if (first && first.at < oldest) oldest = first.at;
        }
      }
      items.set(queue, total);
      overdue.set(queue, (now - oldest) / 1000);
    }
    this.last = { items, overdue };
    this.readAt = now;
  }
}

/**
 * The gateway's Prometheus series (docs/operations.md), in a registry of its own (not prom-client's global
 * one), so several gateways in one process (the tests) keep their counts apart. Counters are incremented
 * where things happen; the backlog gauges are read from the store only when /metrics is scraped (one ZCARD
 * per merchant and queue), so nothing is counted twice and a restart loses nothing.
 */
export class PrometheusMetrics implements GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'route'>;
  private readonly payments: Counter<'source' | 'status'>;
  private readonly deliveries: Counter<'result'>;
  private readonly jobs: Counter<'job' | 'result'>;
  private readonly disputes: Counter<'reason' | 'status'>;
  private readonly discrepancies: Counter<'connector' | 'kind'>;
  private readonly webhooksRefused: Counter<'connector'>;

  constructor(sources: Sources) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'gateway_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.duration = new Histogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Time from the request to the end of its answer, by route pattern',
      labelNames: ['route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.payments = new Counter({
      name: 'gateway_payments_total',
      help: 'Payments settled, by source (direct, checkout, recurring) and payment_status code',
      labelNames: ['source', 'status'],
      registers,
    });
    this.deliveries = new Counter({
      name: 'gateway_notification_deliveries_total',
      help: 'Notification attempts, by result (delivered, failed and retried later, gave_up)',
      labelNames: ['result'],
      registers,
    });
    this.jobs = new Counter({
      name: 'gateway_job_runs_total',
      help: 'Background job runs, by job and result (ok, partial: some items failed and were put back, error)',
      labelNames: ['job', 'result'],
      registers,
    });
    this.disputes = new Counter({
      name: 'gateway_disputes_total',
      help: 'Dispute status changes (opening included), by dispute_reason and the dispute_status reached',
      labelNames: ['reason', 'status'],
      registers,
    });
    this.discrepancies = new Counter({
      name: 'gateway_reconciliation_discrepancies_total',
      help: "Payments whose acquirer's books differ from the gateway's record in a way no transition explains, by connector and kind (each payment and kind counted once)",
      labelNames: ['connector', 'kind'],
      registers,
    });
    this.webhooksRefused = new Counter({
      name: 'gateway_webhook_verification_failures_total',
      help: "Acquirer webhooks refused because their signature was missing or not the account's, by connector",
      labelNames: ['connector'],
      registers,
    });
    const backlog = new Backlog(sources);
    new Gauge({
      name: 'gateway_notifications_pending',
      help: 'Notifications waiting for delivery (the outbox queue; the last value read when the store does not answer)',
      registers,
      async collect() {
        await backlog.refresh();
        if (backlog.last) this.set(backlog.last.items.get('outbox')!);
      },
    });
    new Gauge({
      name: 'gateway_notifications_oldest_due_seconds',
      help: 'How long the most overdue pending notification has been due (0 when none is late)',
      registers,
      async collect() {
        await backlog.refresh();
        if (backlog.last) this.set(backlog.last.overdue.get('outbox')!);
      },
    });
    new Gauge({
      name: 'gateway_due_items',
      help: 'Items waiting in each background queue (expiries, challenges, charges, payouts, notifications; pending_resolve: outcomes not recorded yet)',
      labelNames: ['queue'],
      registers,
      async collect() {
        await backlog.refresh();
        for (const queue of QUEUES) if (backlog.last) this.set({ queue }, backlog.last.items.get(queue)!);
      },
    });
    new Gauge({
      name: 'gateway_outcome_unknown_oldest_seconds',
      help: 'How long the oldest payment or operation whose outcome is not recorded has been past its recovery time (0: none)',
      registers,
      async collect() {
        await backlog.refresh();
        if (backlog.last) this.set(backlog.last.overdue.get('pending_resolve')!);
      },
    });
    new Gauge({
      name: 'gateway_backlog_age_seconds',
      help: 'Age of the backlog values above: grows while the store does not answer (they are the last read)',
      registers,
      async collect() {
        await backlog.refresh();
        this.set(backlog.readAt === 0 ? -1 : (sources.clock.now() - backlog.readAt) / 1000);
      },
    });
    const health = sources.storeHealth;
    if (health) {
      new Gauge({
        name: 'gateway_store_connected',
        help: "1 while the store connection is up, 0 while it is down (the process's own view, no store round trip)",
        registers,
        collect() {
          this.set(health.connected ? 1 : 0);
        },
      });
      const exported = new Map<StoreErrorKind, number>();
      new Counter({
        name: 'gateway_store_errors_total',
        help: 'Store commands that failed, by kind (unreachable: never sent; lost: connection dropped under it; timeout; refused: the store answered an error such as out of memory; unconfirmed: replicas did not confirm)',
        labelNames: ['kind'],
        registers,
        collect() {
          for (const kind of STORE_ERROR_KINDS) {
            const n = health.errors.get(kind)!;
            this.inc({ kind }, n - (exported.get(kind) ?? 0));
            exported.set(kind, n);
          }
        },
      });
      let unknownExported = 0;
      new Counter({
        name: 'gateway_store_unknown_commits_total',
        help: 'Commits sent whose outcome the store did not tell (no answer, or not confirmed): each is settled by recovery',
        registers,
        collect() {
          this.inc(health.unknownCommits - unknownExported);
          unknownExported = health.unknownCommits;
        },
      });
    }
    collectDefaultMetrics({ register: this.registry });
  }

  paymentSettled(source: string, status: string): void {
    this.payments.inc({ source, status });
  }

  notificationAttempt(result: 'delivered' | 'failed' | 'gave_up'): void {
    this.deliveries.inc({ result });
  }

  jobRun(job: string, result: 'ok' | 'partial' | 'error'): void {
    this.jobs.inc({ job, result });
  }

  disputeMoved(reason: string, status: string): void {
    this.disputes.inc({ reason, status });
  }

  reconciliationDiscrepancy(connector: string, kind: string): void {
    this.discrepancies.inc({ connector, kind });
  }

  webhookRefused(connector: string): void {
    this.webhooksRefused.inc({ connector });
  }

  /** One answered HTTP request; `route` is the matched pattern, never the raw path. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.duration.observe({ route }, seconds);
  }

  /** The Prometheus text exposition and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
