import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { GatewayMetrics } from '../core/ports/metrics.js';
import type { DueQueue, GatewayStore } from '../core/ports/store.js';
import type { MerchantDirectory } from '../core/merchants/directory.js';
import type { Clock } from '../core/kernel/clock.js';

/** The due queues whose size is published; the outbox one is also gateway_notifications_pending. */
const QUEUES: readonly DueQueue[] = ['outbox', 'auth_expiry', 'threeds_challenge', 'contract_charge', 'payout'];

interface Sources {
  store: Pick<GatewayStore, 'dueCount' | 'due'>;
  merchants: Pick<MerchantDirectory, 'merchantIds'>;
  clock: Clock;
}

/**
 * The gateway's Prometheus series (DESIGN section 12), in a registry of its own (not prom-client's global
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
    new Gauge({
      name: 'gateway_notifications_pending',
      help: 'Notifications waiting for delivery (the outbox queue)',
      registers,
      async collect() {
        let total = 0;
        for (const m of sources.merchants.merchantIds()) total += await sources.store.dueCount(m, 'outbox');
        this.set(total);
      },
    });
    new Gauge({
      name: 'gateway_notifications_oldest_due_seconds',
      help: 'How long the most overdue pending notification has been due (0 when none is late)',
      registers,
      async collect() {
        const now = sources.clock.now();
        let oldest = now;
        for (const m of sources.merchants.merchantIds()) {
          const [first] = await sources.store.due(m, 'outbox', now, 1);
          if (first && first.at < oldest) oldest = first.at;
        }
        this.set((now - oldest) / 1000);
      },
    });
    new Gauge({
      name: 'gateway_due_items',
      help: 'Items waiting in each background queue (expiries, challenges, charges, payouts, notifications)',
      labelNames: ['queue'],
      registers,
      async collect() {
        for (const queue of QUEUES) {
          let total = 0;
          for (const m of sources.merchants.merchantIds()) total += await sources.store.dueCount(m, queue);
          this.set({ queue }, total);
        }
      },
    });
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
