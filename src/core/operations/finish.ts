import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { ChangeSet } from '../ports/store.js';
import type { CardConnector, OperationOutcome } from '../ports/card-connector.js';
import type { Payment } from '../records/payment.js';
import { outboxRecord, paymentNotificationFields } from '../notifications/outbox.js';
import { commitMarked, releaseClaim, outcomeMark, resolveDue, withoutClaim } from '../payments/claim.js';
import type { OperationResult, PaymentOperation } from './operation.js';
import { openDisputesNow } from '../disputes/steps.js';

/**
 * Finishes a claimed operation: the live path asks the connector; a resumed one (recovery, after its holder
 * crashed or stalled, or an answer lost) first asks the acquirer what it did under the reference, and repeats
 * the call under the same reference when the acquirer never acted, or when it cannot tell and answers a repeat
 * with its first answer (`repeatIsStatus`): that answer is the definite word, never the absence of a record.
 */
export async function finishOperation<O, P>(
  deps: CoreDeps,
  account: Account,
  connector: CardConnector,
  op: PaymentOperation<O, P>,
  claimed: Payment,
  resumed: boolean,
  /** the acquirer may be asked to decide without writing, its records riding in the outcome's commit */
  inCommit = true,
): Promise<OperationResult<P>> {
  const m = account.merchant_id;
  const claim = claimed.claim!;
  const plan = claim.plan as P;
  const before = withoutClaim(claimed);
  let records: { reference: string; data: string }[] = [];
  // a connector that throws (a timeout, a dropped line) may have acted: its record under the reference decides.
  // With a definite "no record" the call counts as refused (a retry carries the same reference, so it cannot
  // act twice); a record that cannot be told leaves the outcome unknown: the claim stays, with its reference and
  // amount, and recovery settles it (never a new reference, or another amount, under an unknown one).
  let outcome: OperationOutcome | undefined | typeof UNKNOWN;
  if (resumed) {
    const known = await statusOf(connector, claim.reference);
    outcome =
      known === UNKNOWN && !connector.repeatIsStatus
        ? UNKNOWN
        : known === UNKNOWN || known === undefined
          ? await attempt(connector, op, before, plan, claim.reference)
          : known;
  } else {
    // an acquirer in the gateway's store (the sandbox) decides without writing: what it keeps is written with
    // the outcome, in one commit; a decision that failed left nothing anywhere, and the acquirer is asked as any
    const decided = inCommit ? await op.executeInCommit?.(connector, before, plan, claim.reference)?.catch(() => undefined) : undefined;
    if (decided) {
      outcome = decided.outcome;
      records = decided.outcome.ok ? decided.records : [];
    } else outcome = await attempt(connector, op, before, plan, claim.reference);
  }
  if (outcome === UNKNOWN) {
    deps.log.error(
      { transaction_id: claimed.transaction_id, merchant_id: m, operation: op.notifyType },
      'acquirer outcome unknown; the claim stays and recovery settles it',
    );
    return { ok: false, failure: 'RECORDING', payment: before };
  }
  if (outcome && !outcome.ok && !op.connectorOptional) {
    deps.log.warn(
      { transaction_id: claimed.transaction_id, merchant_id: m, operation: op.notifyType, reason: outcome.message },
      'connector refused the operation',
    );
    const { payment } = await releaseClaim(deps, claimed, op.released ? op.released(before, plan) : before);
    return { ok: false, failure: 'CONNECTOR_FAILED', payment };
  }
  const now = deps.clock.now();
  const applied = op.apply({ deps, account, now }, before, plan, outcome?.ok ? outcome.connectorRef : undefined);
  const next: Payment = { ...withoutClaim(applied.next), written_by: outcomeMark(claim) };
  const outbox = next.notify_url
    ? [
        outboxRecord(deps, account, op.notifyType, next.notify_url, {
          ...paymentNotificationFields(next, deps.timezone),
          ...applied.notification,
        }),
      ]
    : [];
  const change: ChangeSet = {
    merchantId: m,
    ...applied.change,
    due: [...(applied.change?.due ?? []), resolveDue(next.transaction_id, null)],
    payments: [{ next, expected: claimed.version }],
    outbox: outbox.map((o) => ({ next: o, expected: 0 })),
    ...(records.length > 0 ? { acquirerRecords: records } : {}),
  };
  const verdict = await commitMarked(deps, change, next.transaction_id, next.written_by!);
  if (verdict === 'unknown') {
    deps.log.error(
      { transaction_id: next.transaction_id, merchant_id: m, operation: op.notifyType },
      'operation done at the acquirer but not recorded yet; recovery records it',
    );
    return { ok: false, failure: 'RECORDING', payment: before };
  }
  if (verdict === 'conflict') {
    // another process resumed this claim first: its outcome is this operation's outcome (same reference)
    const current = await deps.store.getPayment(m, next.transaction_id);
    if (current && current.written_by === next.written_by) return { ok: true, payment: current, plan };
    // still ours, as read: what failed the commit was a record already at the acquirer under the reference
    // (nothing was written): the acquirer is asked as any other, and answers from what it kept
    if (records.length > 0 && current?.version === claimed.version)
      return finishOperation(deps, account, connector, op, claimed, resumed, false);
    deps.log.error({ transaction_id: next.transaction_id, merchant_id: m, operation: op.notifyType }, 'claim lost');
    return { ok: false, failure: 'BUSY', payment: current ?? before };
  }
  deps.log.info(
    { transaction_id: next.transaction_id, merchant_id: m, operation: op.notifyType, status: next.status, resumed },
    'operation applied',
  );
  const done = { ...next, version: claimed.version + 1 };
  // a dispute opened with the capture wrote the payment again: answered as it now stands
  if (applied.change?.due && (await openDisputesNow(deps, m, applied.change.due)))
    return { ok: true, payment: (await deps.store.getPayment(m, next.transaction_id).catch(() => undefined)) ?? done, plan };
  return { ok: true, payment: done, plan };
}

const UNKNOWN = Symbol('unknown outcome');

/** The acquirer's record of an operation under `reference`: undefined when it has none, UNKNOWN when unreadable. */
async function statusOf(connector: CardConnector, reference: string): Promise<OperationOutcome | undefined | typeof UNKNOWN> {
  try {
    const s = await connector.status(reference);
    return s && s.op !== 'authorise' ? s.outcome : undefined;
  } catch {
    return UNKNOWN;
  }
}

/** Asks the connector; a call that throws is decided by the acquirer's record under the reference. */
async function attempt<O, P>(
  connector: CardConnector,
  op: PaymentOperation<O, P>,
  p: Payment,
  plan: P,
  reference: string,
): Promise<OperationOutcome | undefined | typeof UNKNOWN> {
  try {
    return await op.execute(connector, p, plan, reference);
  } catch (err) {
    const known = await statusOf(connector, reference);
    return known ?? { ok: false, message: (err as Error).message };
  }
}
