import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import { acquirerReference, commitMarked } from './claim.js';
import { connectorFor } from '../ports/connector.js';
import { PaymentStatus as S, type Payment, type PaymentStatus } from '../records/payment.js';

/** Statuses in which the payment holds its authorisation (or the money captured under it). */
const HOLDS_AUTHORISATION: ReadonlySet<PaymentStatus> = new Set([S.HELD, S.AUTHORISED, S.CAPTURED, S.PARTLY_REFUNDED, S.REFUNDED]);

/**
 * An approval that arrived after the payment was settled otherwise (its claim went stale, and recovery found
 * no record at the acquirer then, or a challenge expired meanwhile): the shopper was told "not charged", so
 * the authorisation the acquirer gave late is voided, under the payment's one void reference. Once voided, a
 * payment recorded "never sent" is so no longer: the merchant's retry of the order then answers the decline
 * instead of re-opening it, which would record the acquirer's first answer (the approval it has voided) again.
 * 'unknown': the void's answer was lost (sent again under its key by the next call).
 */
export async function releaseLateApproval(
  deps: CoreDeps,
  account: Account,
  current: Payment,
  connectorRef: string,
): Promise<'held' | 'voided' | 'refused' | 'unknown'> {
  if (HOLDS_AUTHORISATION.has(current.status)) return 'held';
  const log = { transaction_id: current.transaction_id, merchant_id: current.merchant_id, status: current.status };
  try {
    const voided = await connectorFor(deps, account).void(connectorRef, acquirerReference.void(current.transaction_id));
    if (!voided.ok) {
      deps.log.error({ ...log, reason: voided.message }, 'late approval of a payment settled otherwise: the void was refused');
      return 'refused';
    }
    deps.log.warn(log, 'late approval of a payment settled otherwise: voided');
    if (current.never_sent) await sentAfterAll(deps, current);
    return 'voided';
  } catch (err) {
    deps.log.error({ ...log, err: { message: (err as Error).message } }, 'late approval of a payment settled otherwise: void not sent');
    return 'unknown';
  }
}

/** The payment recorded "never sent" was sent: its retry is no longer re-opened (a conflict: it moved meanwhile). */
async function sentAfterAll(deps: CoreDeps, p: Payment): Promise<void> {
  const { never_sent: _n, ...rest } = p;
  const next: Payment = { ...rest, written_by: `${p.transaction_id}:late-void:${p.version}` };
  await commitMarked(deps, { merchantId: p.merchant_id, payments: [{ next, expected: p.version }] }, p.transaction_id, next.written_by!);
}
