import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import { GatewayError, invalidField } from '../kernel/errors.js';
import { formatAmount, type Minor } from '../kernel/money.js';
import { compactDate, parseCompactDate } from '../kernel/dates.js';
import { canonicalJson, sameRequest } from '../kernel/fingerprint.js';
import { assertNotifyUrl } from '../notifications/target.js';
import { hasRate } from '../records/fx.js';
import { quotePayout } from '../records/fees.js';
import { PayoutStatus as S, type Payout, type PayoutEcho } from '../records/payout.js';
import { jitter, MAX_COMMIT_ATTEMPTS, readBalance } from './balance.js';
import { payoutNotification } from './answer.js';

/** A payout is handed to the provider this long after it is accepted (or at the start of payment_date). */
export const SUBMIT_DELAY_MS = 60_000;

/** A checked payout request in the core's terms. */
export interface PayoutCommand {
  account: Account;
  request: PayoutEcho;
  bank_code: string;
  /** hundredths; undefined when the merchant left the field empty */
  source_amount: Minor | undefined;
  payment_amount: Minor | undefined;
  /** keyed hash of the request: the same request_id with other content is refused */
  fingerprint: string;
  /** the request's hash as earlier versions kept it: asked on a mismatch */
  formerFingerprints?: () => readonly (string | undefined)[];
}

export interface PayoutResult {
  payout: Payout;
  /** true when this answer repeats the payout made earlier for the same request_id */
  replayed: boolean;
}

async function replayOf(deps: CoreDeps, cmd: PayoutCommand): Promise<PayoutResult | undefined> {
  const { account, request } = cmd;
  const existing = await deps.store.findPayoutByRequest(account.merchant_id, account.account_id, request.request_id);
  if (!existing) return undefined;
  if (!sameRequest(existing.fingerprint, cmd.fingerprint, cmd.formerFingerprints)) {
    throw new GatewayError('PAYOUT_CONFLICT', 'request_id: was already used for a different payout request', 'request_id');
  }
  return { payout: existing, replayed: true };
}

/** Start of payment_date in the gateway's zone: the transfer is not sent before it. */
function startOfPaymentDate(date: string, timezone: string): number {
  return parseCompactDate(`${date.replaceAll('-', '')}000000`, timezone) ?? 0;
}

function checkPayout(deps: CoreDeps, cmd: PayoutCommand, now: number): void {
  const r = cmd.request;
  if (!hasRate(deps.fxRates, r.source_currency)) throw invalidField('source_currency', 'has no exchange rate at this gateway');
  if (!hasRate(deps.fxRates, r.payment_currency)) throw invalidField('payment_currency', 'has no exchange rate at this gateway');
  const today = compactDate(now, deps.timezone).slice(0, 8);
  if (r.payment_date.replaceAll('-', '') < today) throw invalidField('payment_date', 'must not be in the past');
}

/**
 * Creates a payout, idempotent on (account, request_id). The deposit account is debited (amount_payer_pays,
 * in source_currency) in the same atomic commit that records the payout and claims its request_id, so a
 * balance can never be overdrawn however many payouts race; a lost race re-reads and retries (bounded).
 */
export async function createPayout(deps: CoreDeps, cmd: PayoutCommand): Promise<PayoutResult> {
  const replay = await replayOf(deps, cmd);
  if (replay) return replay;
  try {
    return await newPayout(deps, cmd);
  } catch (err) {
    // A copy of this request (another process, the same moment) may have committed since the look-up
    // above: then a refusal here (the balance it just debited, a busy store) is not this request's answer,
    // its payout is. The payout's commit claims the request_id with the debit, so a copy that saw the
    // debited balance finds the payout now: every copy of one request answers the same.
    if (err instanceof GatewayError) {
      const raced = await replayOf(deps, cmd);
      if (raced) return raced;
    }
    throw err;
  }
}

async function newPayout(deps: CoreDeps, cmd: PayoutCommand): Promise<PayoutResult> {
  const { account, request: r } = cmd;
  const now = deps.clock.now();
  checkPayout(deps, cmd, now);
  // as /v1/authorise: a target the delivery worker would refuse is refused now, not dropped silently later
  await assertNotifyUrl(r.notify_url, deps.notifyAllowPrivate, deps.transport.resolve);
  const quoted = quotePayout(deps.fxRates, {
    payment_method: r.payment_method,
    fee_paid_by: r.fee_paid_by,
    swift_charge_option: r.swift_charge_option,
    source_currency: r.source_currency,
    payment_currency: r.payment_currency,
    source_amount: cmd.source_amount,
    payment_amount: cmd.payment_amount,
  });
  if (!quoted.ok) throw invalidField(quoted.field, quoted.message);
  const q = quoted.quote;
  const transactionId = deps.ids.transactionId();
  const payout: Payout = {
    version: 0,
    transaction_id: transactionId,
    merchant_id: account.merchant_id,
    account_id: account.account_id,
    request_id: r.request_id,
    short_reference_id: `P${transactionId.slice(2, 8)}-${transactionId.slice(-8)}`,
    payer_id: `pyr_${deps.vault.fingerprint(canonicalJson({ account: account.account_id, payer: r.payer })).slice(0, 20)}`,
    fingerprint: cmd.fingerprint,
    request: r,
    bank_code: cmd.bank_code,
    status: S.PENDING,
    failure_reason: '',
    failure_type: '',
    fee_currency: r.source_currency,
    fee_amount: q.fee_amount,
    amount_payer_pays: q.amount_payer_pays,
    amount_beneficiary_receives: q.amount_beneficiary_receives,
    next_step_at: Math.max(now + SUBMIT_DELAY_MS, startOfPaymentDate(r.payment_date, deps.timezone)),
    created_at: now,
    updated_at: now,
  };
  const outbox = payoutNotification(deps, account, payout);
  for (let attempt = 0; attempt < MAX_COMMIT_ATTEMPTS; attempt++) {
    const balance = await readBalance(deps, account, r.source_currency, now);
    if (balance.available < q.amount_payer_pays) {
      const field = cmd.payment_amount !== undefined ? 'payment_amount' : 'source_amount';
      throw new GatewayError(
        'INSUFFICIENT_BALANCE',
        `${field}: the payout needs ${formatAmount(q.amount_payer_pays)} ${r.source_currency} from the deposit account, which holds ${formatAmount(balance.available)} ${r.source_currency}`,
        field,
      );
    }
    const committed = await deps.store.commit({
      merchantId: account.merchant_id,
      payouts: [{ next: payout, expected: 0 }],
      balances: [{ next: { ...balance, available: balance.available - q.amount_payer_pays, updated_at: now }, expected: balance.version }],
      due: [{ queue: 'payout', member: transactionId, at: payout.next_step_at }],
      outbox,
    });
    if (committed) {
      deps.log.info({ transaction_id: transactionId, merchant_id: account.merchant_id, status: payout.status }, 'payout accepted');
      return { payout: { ...payout, version: 1 }, replayed: false };
    }
    const raced = await replayOf(deps, cmd);
    if (raced) return raced;
    await jitter();
  }
  throw new GatewayError('STORE_UNAVAILABLE', 'the deposit account is busy; try the same request again');
}
