import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { OutboxRecord } from './outbox.js';
import { GatewayError } from '../kernel/errors.js';
import { firstOfOrder, sameOrder } from '../queries/order-lookup.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from '../kernel/signing.js';

export interface ResendAnswer {
  merchant_id: string;
  account_id: string;
  return_status: '1';
  return_message: string;
  notifications: { notify_id: string; notify_type: string; order_no: string; status: string }[];
  encryption_data: string;
}

const MAX_TRIES = 5;

/** Puts one notification back in the queue, due now, with a fresh retry window; the notify_id stays. */
async function requeue(deps: CoreDeps, merchantId: string, notifyId: string): Promise<OutboxRecord | undefined> {
  for (let i = 0; i < MAX_TRIES; i++) {
    const rec = await deps.store.getOutbox(merchantId, notifyId);
    if (!rec) return undefined;
    const now = deps.clock.now();
    const { lease_until: _l, ...rest } = rec;
    // a notification being sent right now keeps its lease: the worker sends it after that
    const next: OutboxRecord = {
      ...rest,
      ...(rec.lease_until && rec.lease_until > now ? { lease_until: rec.lease_until } : {}),
      status: 'pending',
      next_attempt_at: now,
      retry_from: now,
      round_start_attempts: rec.attempts,
    };
    if (await deps.store.commit({ merchantId, outbox: [{ next, expected: rec.version }] })) return { ...next, version: rec.version + 1 };
  }
  throw new GatewayError('STORE_UNAVAILABLE', 'the notification is being changed; try again');
}

/**
 * POST /v1/notifications/resend: sends a notification again (by notify_id), or the latest one of an order
 * (by order_no), whatever its delivery status. Another account's notifications are not found.
 */
export async function resendNotifications(deps: CoreDeps, account: Account, notifyId: string, orderNo: string): Promise<ResendAnswer> {
  const m = account.merchant_id;
  let targets: OutboxRecord[];
  if (notifyId) {
    const rec = await deps.store.getOutbox(m, notifyId);
    targets =
      rec &&
      rec.account_id === account.account_id &&
      (!orderNo || (rec.fields.order_no !== undefined && sameOrder(rec.fields.order_no, orderNo)))
        ? [rec]
        : [];
  } else {
    // an order stored before identifiers kept their digit runs has its notifications under the former form
    const ofForm = async (form: string) => {
      const found = (await deps.store.outboxOfOrder(m, account.account_id, form, 1)).filter((r) => r.account_id === account.account_id);
      return found.length > 0 ? found : undefined;
    };
    targets = (await firstOfOrder(orderNo, ofForm)) ?? [];
  }
  if (targets.length === 0) {
    throw new GatewayError(
      'NOTIFICATION_NOT_FOUND',
      notifyId ? 'notify_id: no such notification for this account' : 'order_no: no notification for this order',
      notifyId ? 'notify_id' : 'order_no',
    );
  }
  const queued: OutboxRecord[] = [];
  for (const t of targets) {
    const r = await requeue(deps, m, t.notify_id);
    if (r) queued.push(r);
  }
  const body = {
    merchant_id: account.merchant_id,
    account_id: account.account_id,
    return_status: '1' as const,
    return_message: 'OK',
    notifications: queued.map((r) => ({
      notify_id: r.notify_id,
      notify_type: r.notify_type,
      order_no: r.fields.order_no ?? '',
      status: r.status,
    })),
  };
  return { ...body, encryption_data: signFields(body, RESPONSE_SIGNATURE_FIELDS.batch, account.sign_key) };
}
