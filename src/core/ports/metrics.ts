/**
 * What the core reports to the operator's metrics (docs/operations.md). The core only says what happened;
 * the Prometheus adapter (src/metrics/prometheus.ts) turns it into series. Labels stay bounded: a payment
 * source and a payment_status code, a delivery result, a job name.
 */
export interface GatewayMetrics {
  /** a payment reached a settled status (approved, declined, held, rejected, 3-D Secure failed) */
  paymentSettled(source: string, status: string): void;
  /** one notification attempt ended: delivered, failed (retried later) or gave_up (retry window over) */
  notificationAttempt(result: 'delivered' | 'failed' | 'gave_up'): void;
  /** one run of a background job ended: ok, partial (some items failed and were put back) or error */
  jobRun(job: string, result: 'ok' | 'partial' | 'error'): void;
  /** a dispute reached a status (opened included): its dispute_reason and dispute_status (docs/disputes.md) */
  disputeMoved(reason: string, status: string): void;
  /** reconciliation found a new discrepancy: the connector's code and its kind (records/reconcile-records.ts) */
  reconciliationDiscrepancy(connector: string, kind: string): void;
  /** an acquirer's webhook was refused: its signature missing or not the account's (a wrong secret, a forgery) */
  webhookRefused?(connector: string): void;
}

/** Metrics switched off (METRICS_ALLOW=off): every report is dropped. */
export const noMetrics: GatewayMetrics = {
  paymentSettled: () => undefined,
  notificationAttempt: () => undefined,
  jobRun: () => undefined,
  disputeMoved: () => undefined,
  reconciliationDiscrepancy: () => undefined,
};
