import type { CoreDeps } from '../ports/deps.js';
import { dueQueueJob, type BackgroundJob } from '../schedule/due-queue.js';
import type { Account } from '../records/directory.js';
import type { Contract, ContractCharge } from '../records/contract.js';
import type { AcquirerStatus, AuthorisationOutcome, CardConnector } from '../ports/card-connector.js';
import type { ChangeSet } from '../ports/store.js';
import { PaymentStatus as S, type Payment } from '../records/payment.js';
import { moveTo } from '../payments/transitions.js';
import { RESULT } from '../kernel/result-codes.js';
import { expiryPassed } from '../kernel/cards.js';
import { contractNotificationFields, outboxRecord, paymentNotificationFields } from '../notifications/outbox.js';
import { chargeAllowed, chargeAmount, chargeQueueAt, dueAt } from '../records/contract.js';
import { connectorFor } from '../ports/connector.js';
import { askOnce, type AskedOutcome } from '../payments/ask.js';
import { authorisationState } from '../payments/settle.js';
import { approvalCounters, recordSettled } from '../payments/measure.js';
import { acquirerAmount } from '../kernel/money.js';
import { acquirerReference, isStale, newClaim, outcomeMark, withoutClaim, type PaymentClaim } from '../payments/claim.js';
import { resolveStaleClaim } from '../operations/stale-claim.js';

const DAY_MS = 86_400_000;
/** A failed charge is tried again this long after each failure; after the last one the contract is Suspended. */
export const CHARGE_RETRY_DELAYS_MS: readonly number[] = [DAY_MS, 3 * DAY_MS];
/** one process executes a due charge; another may take over when this runs out (a crash mid-charge) */
export const CHARGE_LEASE_MS = 60_000;
const MAX_COMMIT_TRIES = 5;
/** a contract whose account is no longer configured is looked at again this much later */
const ORPHAN_RECHECK_MS = 3_600_000;

type Deps = CoreDeps;

/** order_no of a charge: deterministic, so the store's order_no claim lets one process create it. */
export function chargeOrderNo(recurringId: string, n: number, attempt: number): string {
  return attempt === 0 ? `${recurringId}-${n}` : `${recurringId}-${n}-R${attempt}`;
}

/**
 * The subscription scheduler over the 'contract_charge' due queue. In two steps, each claimed by a versioned
 * commit so that several gateway processes make every charge once: CHARGE_LEAD_MS before a period's charge is
 * due it is created as a pending recurring payment (order_no `<recurring_id>-<n>`); at the due time it is
 * charged to the stored card, unless that payment was cancelled (/v1/cancel) meanwhile.
 */
export function subscriptionChargeJob(deps: Deps, options: { intervalMs?: number; batch?: number } = {}): BackgroundJob {
  return dueQueueJob(deps, {
    name: 'subscription-charges',
    intervalMs: options.intervalMs ?? 1_000,
    queue: 'contract_charge',
    batch: options.batch ?? 50,
    handle: (merchantId, recurringId) => advanceContract(deps, merchantId, recurringId),
  });
}

async function advanceContract(deps: Deps, merchantId: string, recurringId: string): Promise<boolean> {
  const c = await deps.store.getContract(merchantId, recurringId);
  const now = deps.clock.now();
  if (!c) {
    await deps.store.commit({ merchantId, due: [{ queue: 'contract_charge', member: recurringId, at: null }] });
    return false;
  }
  if (!deps.merchants.find(merchantId, c.account_id)) {
    // left in place, it would be read again every run and, with enough of them, fill the head of the queue
    deps.log.warn(
      { recurring_id: recurringId, merchant_id: merchantId, account_id: c.account_id },
      'subscription of an account no longer configured',
    );
    await deps.store.commit({ merchantId, due: [{ queue: 'contract_charge', member: recurringId, at: now + ORPHAN_RECHECK_MS }] });
    return false;
  }
  if (c.pending_charge) return c.pending_charge.due_at <= now ? executeCharge(deps, c, c.pending_charge) : false;
  if (c.status !== 'Active' || c.next_charge_at === null) {
    await deps.store.commit({ merchantId, due: [{ queue: 'contract_charge', member: recurringId, at: null }] });
    return false;
  }
  return chargeQueueAt(c.next_charge_at) <= now ? createCharge(deps, c) : false;
}

/** Creates the period's charge as a pending recurring payment; the order_no claim makes it happen once. */
async function createCharge(deps: Deps, c: Contract): Promise<boolean> {
  const account = deps.merchants.find(c.merchant_id, c.account_id);
  if (!account) return false;
  const now = deps.clock.now();
  const n = c.charges_made + 1;
  const dueTime = c.next_charge_at!;
  const [card, origin] = await Promise.all([
    deps.store.getCard(c.merchant_id, c.vault_token),
    deps.store.getPayment(c.merchant_id, c.origin_transaction_id),
  ]);
  let orderNo = chargeOrderNo(c.recurring_id, n, c.failed_attempts);
  const squatter = await deps.store.findPaymentByOrder(c.merchant_id, c.account_id, orderNo);
  // the merchant used this order_no for a payment of its own: the contract's versioned write still makes
  // the charge once, under a longer order_no
  if (squatter && squatter.recurring_id !== c.recurring_id) orderNo = `${orderNo}-${deps.ids.opaque('c')}`;
  const charge: ContractCharge = { transaction_id: deps.ids.transactionId(), number: n, attempt: c.failed_attempts, due_at: dueTime };
  const payment: Payment = {
    version: 0,
    transaction_id: charge.transaction_id,
    merchant_id: c.merchant_id,
    account_id: c.account_id,
    order_no: orderNo,
    currency: c.currency,
    amount: chargeAmount(c, n),
    status: S.PENDING,
    result_code: RESULT.PENDING[0],
    fingerprint: `recurring:${orderNo}`,
    source: 'recurring',
    ...(card ? { card: card.card } : {}),
    vault_token: c.vault_token,
    threeds: { mode: 'no3DS', challenge_pending: false, result: '' },
    risk: { action: 'ACCEPT', score: 0, checks: [] },
    connector: connectorFor(deps, account).displayName,
    captured: 0,
    refunded: 0,
    refunds: [],
    note: `${c.contract_name} charge ${n} of ${c.billing_cycle}`,
    website: origin?.website ?? account.website,
    notify_url: c.notify_url,
    shopper_email: origin?.shopper_email ?? '',
    recurring_id: c.recurring_id,
    created_at: now,
    updated_at: now,
    meta: { charge_number: String(n), charge_attempt: String(charge.attempt), due_at: String(dueTime) },
  };
  const created = await deps.store.commit({
    merchantId: c.merchant_id,
    payments: [{ next: payment, expected: 0 }],
    contracts: [{ next: { ...c, pending_charge: charge, updated_at: now }, expected: c.version }],
    due: [{ queue: 'contract_charge', member: c.recurring_id, at: dueTime }],
  });
  if (created)
    deps.log.info(
      { recurring_id: c.recurring_id, transaction_id: payment.transaction_id, order_no: orderNo },
      'subscription charge created',
    );
  return created;
}

/** What the connector says about the stored card, without asking it when the card is gone or expired. */
async function authoriseStoredCard(deps: Deps, account: Account, c: Contract, p: Payment, reference: string): Promise<AskedOutcome> {
  const card = await deps.store.getCard(c.merchant_id, c.vault_token);
  if (!card) return { kind: 'error', message: 'the subscription card is no longer in the vault' };
  if (expiryPassed(card.card.exp_month, card.card.exp_year, deps.clock.now())) {
    return { kind: 'declined', connectorRef: '', reason: 'EXPIRED_CARD', threedsResult: 'not performed' };
  }
  let pan: string;
  try {
    pan = deps.vault.open(card);
  } catch {
    // sealed under another VAULT_KEY, or damaged: a failed charge, not an exception that ends the scheduler's run
    return { kind: 'error', message: 'the subscription card cannot be opened by the vault' };
  }
  const connector = connectorFor(deps, account);
  // the same path as every authorisation: a call that throws is decided by the acquirer's record, and an
  // unreadable record leaves the charge claimed (unknown), never "declined" and tried again as a new payment
  return askOnce(connector, reference, () =>
    connector.authorise({
      reference,
      pan,
      expMonth: card.card.exp_month,
      expYear: card.card.exp_year,
      amount: acquirerAmount(p.amount, p.currency),
      currency: p.currency,
      threeDS: 'no3DS',
      recurring: true,
      ...(account.capture_mode === 'auto' && p.risk.action !== 'REVIEW' ? { capture: true } : {}),
    }),
  );
}

/**
 * What the acquirer did under the reference of a run that died: its record; undefined when it has none, or when
 * it cannot be read and the acquirer answers a repeat under its key with its first answer (the charge is then
 * sent again under the same reference, and that answer is the status). Otherwise unreadable: thrown, and the
 * claim stays for a later run.
 */
async function previousAnswer(connector: CardConnector, reference: string): Promise<AcquirerStatus> {
  try {
    return await connector.status(reference);
  } catch (err) {
    if (connector.repeatIsStatus) return undefined;
    throw err;
  }
}

/** The contract after a period's charge: next period, a retry, Suspended or Completed. */
function contractAfter(c: Contract, charge: ContractCharge, result: 'approved' | 'failed' | 'skipped', now: number): Contract {
  const base: Contract = { ...c, updated_at: now };
  delete base.pending_charge;
  delete base.charge_lease_until;
  let next: Contract;
  const retryAt = charge.attempt < CHARGE_RETRY_DELAYS_MS.length ? now + CHARGE_RETRY_DELAYS_MS[charge.attempt]! : undefined;
  if (result === 'failed' && retryAt !== undefined && chargeAllowed(c, charge.number, retryAt)) {
    next = { ...base, failed_attempts: charge.attempt + 1, next_charge_at: retryAt };
  } else if (result === 'failed') {
    next = { ...base, failed_attempts: charge.attempt + 1, next_charge_at: null, status: c.status === 'Active' ? 'Suspended' : c.status };
  } else {
    const following = dueAt(c, charge.number + 1);
    next = { ...base, charges_made: charge.number, failed_attempts: 0, next_charge_at: following };
    if (following === null && c.status === 'Active') next.status = 'Completed';
  }
  // a subscription cancelled while this charge waited is charged no further
  if (c.status !== 'Active') next.next_charge_at = null;
  return next;
}

/**
 * Charges a due pending payment once and records the outcome. The contract's lease and the payment's claim
 * (op 'charge', the authorisation's acquirer reference) are written in one commit before the acquirer is
 * asked; a run that finds the claim of a run that died asks the acquirer what it did under that reference
 * instead of charging again.
 */
async function executeCharge(deps: Deps, c: Contract, charge: ContractCharge): Promise<boolean> {
  const m = c.merchant_id;
  const now = deps.clock.now();
  if ((c.charge_lease_until ?? 0) > now) return false;
  const account = deps.merchants.find(m, c.account_id);
  if (!account) return false;
  const reference = acquirerReference.authorise(charge.transaction_id);
  const mine: PaymentClaim = { ...newClaim(deps, { op: 'charge', reference }, now), until: now + CHARGE_LEASE_MS };
  // a merchant's /v1/cancel holds this charge: let it finish, the next run sees its outcome
  const held = (p: Payment | undefined) => Boolean(p?.claim && p.claim.until > deps.clock.now() && p.claim.id !== mine.id);
  let before = await deps.store.getPayment(m, charge.transaction_id);
  if (held(before)) return false;
  if (before?.claim && before.claim.op !== 'charge' && isStale(before.claim, now)) {
    await resolveStaleClaim(deps, account, before);
    before = await deps.store.getPayment(m, charge.transaction_id);
    if (held(before) || before?.claim?.op !== undefined) return false;
  }
  const previous = before?.claim?.op === 'charge' ? before.claim : undefined;
  if (before) mine.amount = before.amount;
  const claimPayment = before?.status === S.PENDING ? [{ next: { ...before, claim: mine }, expected: before.version }] : [];
  const claimed = await deps.store.commit({
    merchantId: m,
    contracts: [{ next: { ...c, charge_lease_until: now + CHARGE_LEASE_MS }, expected: c.version }],
    payments: claimPayment,
    due: [{ queue: 'contract_charge', member: c.recurring_id, at: now + CHARGE_LEASE_MS }],
  });
  if (!claimed) return false;

  let outcome: AuthorisationOutcome | undefined;
  if (before?.status === S.PENDING) {
    // a run that died after asking the acquirer: its answer stands (the same reference is never charged twice)
    const known = previous ? await previousAnswer(connectorFor(deps, account), previous.reference) : undefined;
    const asked = known?.op === 'authorise' ? known.outcome : await authoriseStoredCard(deps, account, c, before, reference);
    if (asked.kind === 'unknown' || asked.kind === 'pending') {
      // the claim and the lease stay: after the lease the next run reads the acquirer's record under the reference
      // (an acquirer that decides later is read again the same way, until it has decided)
      deps.log[asked.kind === 'unknown' ? 'error' : 'info'](
        { recurring_id: c.recurring_id, transaction_id: charge.transaction_id },
        asked.kind === 'unknown'
          ? 'subscription charge outcome unknown; resumed after the lease'
          : 'subscription charge pending at the acquirer; read again after the lease',
      );
      return false;
    }
    outcome = asked;
  }

  for (let i = 0; i < MAX_COMMIT_TRIES; i++) {
    const [current, p] = await Promise.all([deps.store.getContract(m, c.recurring_id), deps.store.getPayment(m, charge.transaction_id)]);
    if (!current) return false;
    const at = deps.clock.now();
    const change: ChangeSet = { merchantId: m };
    let result: 'approved' | 'failed' | 'skipped' = 'skipped';
    let charged: Payment | undefined;
    if (p && p.status === S.PENDING && outcome && !held(p)) {
      const state = authorisationState(
        account,
        p,
        outcome.kind === 'challenge' ? { kind: 'error', message: 'challenge on a recurring charge' } : outcome,
        at,
      );
      const move = moveTo(withoutClaim(p), state.status, at, {
        ...state.changes,
        result_code: RESULT[state.result][0],
        written_by: outcomeMark(mine),
      });
      if (move.ok) {
        charged = move.payment;
        result = state.status === S.AUTHORISED || state.status === S.CAPTURED ? 'approved' : 'failed';
        change.payments = [{ next: charged, expected: p.version }];
        const counters = approvalCounters(charged);
        if (counters) change.counters = [counters];
        if (charged.status === S.AUTHORISED)
          change.due = [{ queue: 'auth_expiry', member: charged.transaction_id, at: charged.auth_expires_at! }];
      }
    }
    const nextContract = contractAfter(current, charge, result, at);
    change.contracts = [{ next: nextContract, expected: current.version }];
    change.due = [
      ...(change.due ?? []),
      {
        queue: 'contract_charge',
        member: c.recurring_id,
        at: nextContract.next_charge_at === null ? null : chargeQueueAt(nextContract.next_charge_at),
      },
    ];
    if (charged && charged.notify_url) {
      const fields = {
        ...paymentNotificationFields(charged, deps.timezone),
        ...contractNotificationFields(nextContract, deps.timezone),
        charge_number: String(charge.number),
      };
      change.outbox = [{ next: outboxRecord(deps, account, 'subscription_charge', charged.notify_url, fields), expected: 0 }];
    }
    if (await deps.store.commit(change)) {
      if (charged) recordSettled(deps, charged);
      // cancelled (/v1/cancel) while the acquirer was asked: release the authorisation it gave
      if (result === 'skipped' && outcome?.kind === 'approved')
        await connectorFor(deps, account)
          .void(outcome.connectorRef, acquirerReference.void(charge.transaction_id))
          .catch(() => undefined);
      deps.log.info(
        {
          recurring_id: c.recurring_id,
          transaction_id: charge.transaction_id,
          charge_number: charge.number,
          result,
          contract_status: nextContract.status,
        },
        'subscription charge done',
      );
      return true;
    }
  }
  deps.log.error(
    { recurring_id: c.recurring_id, transaction_id: charge.transaction_id },
    'subscription charge could not be recorded; retried after the lease',
  );
  return false;
}
