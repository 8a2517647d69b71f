import type { CoreDeps } from '../ports/deps.js';
import type { Payment, PaymentStatus } from '../records/payment.js';
import type { OutboxRecord } from '../notifications/outbox.js';
import type { AuditRecord } from './audit.js';
import type { DiscrepancyKind, DiscrepancyRecord } from '../records/reconcile-records.js';

/** One delivery attempt as kept on the notification: when, the HTTP status if one came, the error if it failed. */
export interface DeliveryTry {
  at: number;
  status?: number;
  error?: string;
}

/**
 * A notification's deliveries folded into one line: a merchant whose endpoint is down for a day and a half
 * sees how many attempts, the first and the last, and when the next comes, not one line per failed attempt.
 */
export interface DeliverySummary {
  notify_id: string;
  notify_type: string;
  notify_url: string;
  /** pending: not tried yet; retrying: tried, failed, tried again later; delivered; failed: the retries stopped */
  state: 'pending' | 'retrying' | 'delivered' | 'failed';
  attempts: number;
  /** the oldest attempt kept (the record keeps the latest 20; `attempts` counts all) */
  first?: DeliveryTry;
  last?: DeliveryTry;
  next_retry_at?: number;
  /** the attempts kept, oldest first */
  tries: DeliveryTry[];
}

/** One line of a payment's history: what happened, as data; the page words it in the reader's language. */
export type StoryEvent =
  | { at: number; kind: 'created'; source: Payment['source']; amount: number; currency: string }
  | { at: number; kind: 'status'; from: PaymentStatus; to: PaymentStatus }
  | { at: number; kind: 'refund'; reference: string; amount: number; currency: string }
  | { at: number; kind: 'queued'; notify_type: string; notify_id: string }
  | { at: number; kind: 'delivery'; delivery: DeliverySummary }
  | { at: number; kind: 'action'; email: string; action: string; ok: boolean; result: string }
  /** reconciliation found the acquirer's books differ: what (the kind) and the amount on each side */
  | { at: number; kind: 'discrepancy'; what: DiscrepancyKind; acquirer: number; gateway: number; currency: string; connector: string };

/** Everything the payment page shows: the payment, its notifications and their deliveries, the portal actions, its history. */
export interface PaymentStory {
  payment: Payment;
  notifications: OutboxRecord[];
  deliveries: DeliverySummary[];
  actions: AuditRecord[];
  history: StoryEvent[];
}

const NOTIFICATIONS_SHOWN = 50;

/** A merchant's payment with its whole story; undefined when the merchant has no such payment (another's included). */
export async function paymentStory(deps: CoreDeps, merchantId: string, transactionId: string): Promise<PaymentStory | undefined> {
  const payment = await deps.store.getPayment(merchantId, transactionId);
  if (!payment || payment.merchant_id !== merchantId || !deps.merchants.find(merchantId, payment.account_id)) return undefined;
  const [outbox, actions, discrepancies] = await Promise.all([
    deps.store.outboxOfOrder(merchantId, payment.account_id, payment.order_no, NOTIFICATIONS_SHOWN),
    deps.store.auditOf(merchantId, transactionId, 100),
    deps.store.discrepanciesOf(merchantId, transactionId),
  ]);
  const notifications = outbox.filter((n) => n.fields.transaction_id === undefined || n.fields.transaction_id === transactionId);
  return {
    payment,
    notifications,
    deliveries: notifications.map(summariseDelivery),
    actions,
    history: historyOf(payment, notifications, actions, discrepancies),
  };
}

/** One notification's attempts as one summary: count, first and last attempt, the next retry while one is due. */
export function summariseDelivery(n: OutboxRecord): DeliverySummary {
  const tries = n.tries ?? [];
  const first = tries[0];
  const last = tries.at(-1) ?? (n.attempts > 0 && n.last_error ? { at: n.next_attempt_at, error: n.last_error } : undefined);
  const state = n.status === 'delivered' ? 'delivered' : n.status === 'failed' ? 'failed' : n.attempts > 0 ? 'retrying' : 'pending';
  return {
    notify_id: n.notify_id,
    notify_type: n.notify_type,
    notify_url: n.notify_url,
    state,
    attempts: n.attempts,
    ...(first ? { first } : {}),
    ...(last ? { last } : {}),
    ...(n.status === 'pending' ? { next_retry_at: n.next_attempt_at } : {}),
    tries,
  };
}

export function historyOf(
  p: Payment,
  notifications: OutboxRecord[],
  actions: AuditRecord[],
  discrepancies: readonly DiscrepancyRecord[] = [],
): StoryEvent[] {
  const events: StoryEvent[] = [{ at: p.created_at, kind: 'created', source: p.source, amount: p.amount, currency: p.currency }];
  for (const h of p.history ?? []) events.push({ at: h.at, kind: 'status', from: h.from, to: h.to });
  for (const r of p.refunds) {
    events.push({ at: r.refund_date, kind: 'refund', reference: r.refund_reference_id, amount: r.refund_amount, currency: p.currency });
  }
  for (const n of notifications) {
    events.push({ at: n.created_at, kind: 'queued', notify_type: n.notify_type, notify_id: n.notify_id });
    // every attempt folded into one line, at the last attempt: a day of retries is one line, not thirty
    const delivery = summariseDelivery(n);
    if (delivery.attempts > 0) events.push({ at: n.delivered_at ?? delivery.last?.at ?? n.created_at, kind: 'delivery', delivery });
  }
  for (const a of actions) events.push({ at: a.at, kind: 'action', email: a.email, action: a.action, ok: a.ok, result: a.result });
  for (const d of discrepancies) {
    const { acquirer_amount: acquirer, gateway_amount: gateway, currency, connector } = d;
    events.push({ at: d.found_at, kind: 'discrepancy', what: d.kind, acquirer, gateway, currency, connector });
  }
  // stable sort: events at the same instant keep the order they happened in (creation, move, notification)
  return events.sort((a, b) => a.at - b.at);
}
