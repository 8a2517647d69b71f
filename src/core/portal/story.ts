import type { CoreDeps } from '../ports/deps.js';
import type { Payment } from '../payments/payment.js';
import type { OutboxRecord } from '../notifications/outbox.js';
import type { AuditRecord } from './audit.js';
import { STATUS_TEXT } from '../payments/transitions.js';
import { formatAmount } from '../kernel/money.js';

/** One line of a payment's history. */
export interface StoryEvent {
  at: number;
  kind: 'created' | 'status' | 'refund' | 'notification' | 'delivery' | 'action';
  text: string;
}

/** Everything the payment page shows: the payment, its notifications and attempts, the portal actions, its history. */
export interface PaymentStory {
  payment: Payment;
  notifications: OutboxRecord[];
  actions: AuditRecord[];
  history: StoryEvent[];
}

const NOTIFICATIONS_SHOWN = 50;

/** A merchant's payment with its whole story; undefined when the merchant has no such payment (another's included). */
export async function paymentStory(deps: CoreDeps, merchantId: string, transactionId: string): Promise<PaymentStory | undefined> {
  const payment = await deps.store.getPayment(merchantId, transactionId);
  if (!payment || payment.merchant_id !== merchantId || !deps.merchants.find(merchantId, payment.account_id)) return undefined;
  const [outbox, actions] = await Promise.all([
    deps.store.outboxOfOrder(merchantId, payment.account_id, payment.order_no, NOTIFICATIONS_SHOWN),
    deps.store.auditOf(merchantId, transactionId, 100),
  ]);
  const notifications = outbox.filter((n) => n.fields.transaction_id === undefined || n.fields.transaction_id === transactionId);
  return { payment, notifications, actions, history: historyOf(payment, notifications, actions) };
}

export function historyOf(p: Payment, notifications: OutboxRecord[], actions: AuditRecord[]): StoryEvent[] {
  const events: StoryEvent[] = [
    { at: p.created_at, kind: 'created', text: `payment received (${p.source}), ${formatAmount(p.amount)} ${p.currency}` },
  ];
  for (const h of p.history ?? [])
    events.push({ at: h.at, kind: 'status', text: `${STATUS_TEXT[h.from]} → ${STATUS_TEXT[h.to]} (${h.to})` });
  for (const r of p.refunds) {
    events.push({
      at: r.refund_date,
      kind: 'refund',
      text: `refund ${r.refund_reference_id} of ${formatAmount(r.refund_amount)} ${p.currency}`,
    });
  }
  for (const n of notifications) {
    events.push({ at: n.created_at, kind: 'notification', text: `${n.notify_type} notification ${n.notify_id} queued` });
    for (const t of n.tries ?? []) {
      const how = t.error ? `failed: ${t.error}` : `delivered (HTTP ${t.status})`;
      events.push({ at: t.at, kind: 'delivery', text: `${n.notify_type} notification ${how}` });
    }
  }
  for (const a of actions) {
    events.push({
      at: a.at,
      kind: 'action',
      text: `${a.email}: ${a.action.replace('_', ' ')} — ${a.ok ? 'done' : 'refused'} (${a.result})`,
    });
  }
  // stable sort: events at the same instant keep the order they happened in (creation, move, notification)
  return events.sort((a, b) => a.at - b.at);
}
