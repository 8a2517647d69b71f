import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { Payment } from '../records/payment.js';
import { GatewayError, invalidField } from '../kernel/errors.js';
import { formatAmount, isZeroDecimal } from '../kernel/money.js';
import { runBatch } from '../operations/batch.js';
import type { OperationResult } from '../operations/apply.js';
import { outcomeText } from '../operations/failures.js';
import { captureOperation } from '../operations/capture.js';
import { cancelOperation } from '../operations/cancel.js';
import { refundOperation } from '../operations/refund.js';
import { resendNotifications } from '../notifications/resend.js';
import { cancelSubscription } from '../subscriptions/cancel.js';
import { recordAction, type AuditRecord } from './audit.js';
import type { PortalSession } from './sessions.js';

/** The outcome of a portal action as the page reports it (and the audit keeps it). */
export interface ActionResult {
  ok: boolean;
  /** `V0000:Success`, or the API's per-order failure text */
  result: string;
  audit: AuditRecord;
  /** for a capture, cancel or refund: what it was and what it moved (minor units), so the page can word it */
  done?: { action: 'capture' | 'cancel' | 'refund'; amount: number; currency: string };
}

/** Only admins act; a viewer's forged POST ends here (the pages never show them a form). */
export function requireAdmin(session: PortalSession): void {
  if (session.role !== 'admin') throw new GatewayError('PORTAL_FORBIDDEN', 'your role (viewer) may look but not act');
}

/** The merchant's payment and its account, or 404 for anything else (another merchant's payment too). */
async function ownPayment(deps: CoreDeps, session: PortalSession, transactionId: string): Promise<{ p: Payment; account: Account }> {
  const p = await deps.store.getPayment(session.merchant_id, transactionId);
  const account = p ? deps.merchants.find(session.merchant_id, p.account_id) : undefined;
  if (!p || !account) throw new GatewayError('NOT_FOUND', 'transaction_id: no such payment');
  return { p, account };
}

/** As the batch schemas say: in a zero-decimal currency (JPY, KRW, ...) an amount is whole units. */
function wholeUnits(p: Payment, field: string, amount: number): void {
  if (isZeroDecimal(p.currency) && amount % 100 !== 0) throw invalidField(field, `must be whole units: ${p.currency} has no minor unit`);
}

const text = (r: OperationResult<unknown>): string => (r.ok ? outcomeText('SUCCESS') : outcomeText(r.failure, r.detail));

/** The order a batch call would carry for this payment, as the /v1 route builds it from the merchant's request. */
const orderOf = (p: Payment, amount: number) => ({ transaction_id: p.transaction_id, order_no: p.order_no, currency: p.currency, amount });

/** Capture by hand: the same batch runner, operation, claim and notification as POST /v1/capture. */
export async function captureByHand(deps: CoreDeps, session: PortalSession, transactionId: string, amount: number): Promise<ActionResult> {
  requireAdmin(session);
  const { p, account } = await ownPayment(deps, session, transactionId);
  wholeUnits(p, 'amount', amount);
  const [r] = await runBatch(deps, account, 'capture', [orderOf(p, amount)], captureOperation);
  return done(deps, session, account, 'capture', p, { amount: formatAmount(amount) }, r!, amount);
}

/** Cancel (void) by hand, as POST /v1/cancel. */
export async function cancelByHand(deps: CoreDeps, session: PortalSession, transactionId: string): Promise<ActionResult> {
  requireAdmin(session);
  const { p, account } = await ownPayment(deps, session, transactionId);
  const [r] = await runBatch(deps, account, 'cancel', [orderOf(p, p.amount)], cancelOperation);
  return done(deps, session, account, 'cancel', p, {}, r!, p.amount);
}

/** Refund by hand, as POST /v1/refund: the claim serialises it with any API refund of the same payment. */
export async function refundByHand(
  deps: CoreDeps,
  session: PortalSession,
  transactionId: string,
  refundAmount: number,
  reason: string,
): Promise<ActionResult> {
  requireAdmin(session);
  const { p, account } = await ownPayment(deps, session, transactionId);
  wholeUnits(p, 'refund_amount', refundAmount);
  const order = { ...orderOf(p, p.amount), refund_amount: refundAmount, refund_reason: reason };
  const [r] = await runBatch(deps, account, 'refund', [order], refundOperation);
  const detail = { refund_amount: formatAmount(refundAmount), refund_reason: reason };
  if (r!.ok) Object.assign(detail, { refund_reference_id: r!.plan.refundReferenceId });
  return done(deps, session, account, 'refund', p, detail, r!, refundAmount);
}

async function done(
  deps: CoreDeps,
  session: PortalSession,
  account: Account,
  action: 'capture' | 'cancel' | 'refund',
  p: Payment,
  detail: Record<string, string>,
  r: OperationResult<unknown>,
  amount: number,
): Promise<ActionResult> {
  const result = text(r);
  const subject = p.transaction_id;
  const audit = await recordAction(deps, session, { account_id: account.account_id, action, subject, detail, ok: r.ok, result });
  return { ok: r.ok, result, audit, done: { action, amount, currency: p.currency } };
}

/** Sends a payment's notification again, through the same requeue as POST /v1/notifications/resend. */
export async function resendByHand(deps: CoreDeps, session: PortalSession, transactionId: string, notifyId: string): Promise<ActionResult> {
  requireAdmin(session);
  const { p, account } = await ownPayment(deps, session, transactionId);
  const rec = await deps.store.getOutbox(session.merchant_id, notifyId);
  if (!rec || rec.account_id !== p.account_id || rec.fields.order_no !== p.order_no) {
    throw new GatewayError('NOTIFICATION_NOT_FOUND', 'notify_id: no such notification for this payment', 'notify_id');
  }
  const answer = await resendNotifications(deps, account, notifyId, p.order_no);
  const ok = answer.notifications.length > 0;
  const result = ok ? 'queued for delivery now' : 'notification not found';
  const audit = await recordAction(deps, session, {
    account_id: account.account_id,
    action: 'resend',
    subject: transactionId,
    detail: { notify_id: notifyId },
    ok,
    result,
  });
  return { ok, result, audit };
}

/** Cancels a subscription by hand, as POST /v1/cancelsubscription. */
export async function cancelSubscriptionByHand(
  deps: CoreDeps,
  session: PortalSession,
  accountId: string,
  recurringId: string,
): Promise<ActionResult> {
  requireAdmin(session);
  const account = deps.merchants.find(session.merchant_id, accountId);
  if (!account) throw new GatewayError('NOT_FOUND', 'account_id: no such account');
  const answer = await cancelSubscription(deps, account, recurringId, '');
  const ok = answer.cancel_status === '1';
  const result = ok ? 'subscription Inactived' : answer.error_message;
  const audit = await recordAction(deps, session, {
    account_id: accountId,
    action: 'subscription_cancel',
    subject: recurringId,
    detail: {},
    ok,
    result,
  });
  return { ok, result, audit };
}
