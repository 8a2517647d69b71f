import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { AuthorisationOutcome } from '../ports/card-connector.js';
import { GatewayError } from '../kernel/errors.js';
import { RESULT } from '../kernel/result-codes.js';
import { acquirerReference, commitMarked, newClaim, referenceKind, resolveDue } from './claim.js';
import { connectorFor } from '../ports/connector.js';
import { PaymentStatus as S, type Payment, type PaymentStatus } from '../records/payment.js';
import { moveTo } from './transitions.js';
import { settleAuthorisation } from './settle.js';
import { releaseLateApproval } from './late-approval.js';

/** Statuses in which the gateway told the merchant the shopper was not charged, and which nothing moves on. */
const SETTLED_UNPAID: ReadonlySet<PaymentStatus> = new Set([S.DECLINED, S.THREEDS_FAILED, S.REJECTED, S.CANCELLED]);

/**
 * The acquirer reports (by webhook) an authorisation of `reference`, which may be approved, for a payment the
 * gateway settled as unpaid: a request that ran on at the acquirer after recovery found no record of it. The
 * acquirer's own record decides (a direct read, or its answer under the reference): an approval is voided
 * (late-approval.ts). One the acquirer refuses to void (an automatic-capture charge already made) of a
 * payment recorded "never sent" is caught up instead: re-opened and settled with the acquirer's answer, as the
 * merchant's retry of the order would, so the gateway records the charge the shopper paid (and notifies it).
 * Unknown (the acquirer unreadable, the void's answer lost) is thrown, so the acquirer sends the event again.
 */
export async function releaseReportedApproval(deps: CoreDeps, account: Account, reference: string): Promise<void> {
  const kind = referenceKind(reference);
  if (kind.op !== 'authorise' && kind.op !== 'challenge') return;
  const payment = await deps.store.getPayment(account.merchant_id, kind.transactionId);
  if (!payment || payment.claim || payment.account_id !== account.account_id || !SETTLED_UNPAID.has(payment.status)) return;
  const status = await connectorFor(deps, account).status(reference);
  if (status?.op !== 'authorise' || status.outcome.kind !== 'approved') return;
  const released = await releaseLateApproval(deps, account, payment, status.outcome.connectorRef);
  if (released === 'unknown')
    throw new GatewayError('OUTCOME_UNKNOWN', 'the void of a late approval is still unknown at the acquirer; send the event again');
  if (released === 'refused' && payment.never_sent && reference === acquirerReference.authorise(payment.transaction_id, payment.attempt))
    await catchUp(deps, account, payment, reference, status.outcome);
}

/**
 * Re-opens a payment recorded "never sent" under a claim of its authorisation reference and settles it with the
 * acquirer's answer. A commit the store cannot confirm leaves the claim to recovery, which reads the same answer.
 */
async function catchUp(
  deps: CoreDeps,
  account: Account,
  declined: Payment,
  reference: string,
  outcome: AuthorisationOutcome,
): Promise<void> {
  const now = deps.clock.now();
  const claim = newClaim(deps, { op: 'authorise', reference, amount: declined.amount }, now);
  const { never_sent: _n, ...rest } = declined;
  const move = moveTo(rest, S.PENDING, now, { claim, written_by: `${claim.id}:reopen`, result_code: RESULT.PENDING[0] });
  if (!move.ok) return;
  const verdict = await commitMarked(
    deps,
    {
      merchantId: declined.merchant_id,
      payments: [{ next: move.payment, expected: declined.version }],
      due: [resolveDue(declined.transaction_id, claim.until)],
    },
    declined.transaction_id,
    move.payment.written_by!,
  );
  if (verdict !== 'applied') return;
  deps.log.warn(
    { transaction_id: declined.transaction_id, merchant_id: declined.merchant_id },
    'late charge of a payment recorded never sent: the acquirer refused its void, so the charge is recorded',
  );
  await settleAuthorisation(deps, account, { ...move.payment, version: declined.version + 1 }, outcome, 'payment');
}
