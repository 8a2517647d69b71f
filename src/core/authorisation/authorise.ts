import type { CoreDeps } from '../ports/deps.js';
import type { ChangeSet } from '../ports/store.js';
import type { Account } from '../records/directory.js';
import type { Contract } from '../records/contract.js';
import type { BrowserInfo, CardAuthorisation, CardConnector } from '../ports/card-connector.js';
import { GatewayError, invalidField } from '../kernel/errors.js';
import { askOnce, outcomeUnknown, recordingUnknown } from '../payments/ask.js';
import { pause } from '../kernel/clock.js';
import { PaymentStatus as S, withLaterFields, type CardSummary, type Payment } from '../records/payment.js';
import { assessRisk } from '../payments/risk.js';
import { moveTo } from '../payments/transitions.js';
import { expiryPassed, maskCardNumbers, summariseCard } from '../kernel/cards.js';
import type { SubscriptionTerms } from '../records/contract.js';
import { RESULT } from '../kernel/result-codes.js';
import { challengeReturnUrl, issuerUrl, newChallengeSecret, settleAuthorisation, type PaymentResult } from '../payments/settle.js';
import { assertNotifyUrl } from '../notifications/target.js';
import { returnUrlAllowed } from '../merchants/return-origins.js';
import { acquirerAmount } from '../kernel/money.js';
import { sameRequest } from '../kernel/fingerprint.js';
import { acquirerReference, commitMarked, commitMarkedTold, isStale, newClaim, resolveDue, takeClaim } from '../payments/claim.js';
import { resolveStaleClaim } from '../operations/stale-claim.js';
import { connectorFor } from '../ports/connector.js';
import type { VaultRecord } from '../records/vault.js';
import { orderForms, paymentOfOrder } from '../queries/order-lookup.js';
import { savedCardHash } from '../records/saved-card-record.js';

export interface CardInput {
  pan: string;
  expMonth: string;
  expYear: string;
  securityCode?: string;
}

/** A payment order as the core takes it: amounts in minor units, every field already checked. */
export interface PaymentOrder {
  order_no: string;
  currency: string;
  amount: number;
  note: string;
  website: string;
  notify_url: string;
  return_url?: string;
  shopper_email: string;
  shopper_ip: string;
  billing_country: string;
  delivery_country: string;
  device_fingerprint: string;
  open3d: 'do3DS' | 'no3DS';
  token_flag: 'YES' | 'NO';
  token_id: string;
  mpi?: CardAuthorisation['mpi'];
  subscription?: SubscriptionTerms;
}

export interface AuthoriseCommand {
  account: Account;
  order: PaymentOrder;
  /** absent when the order pays with token_id */
  card?: CardInput;
  source: Payment['source'];
  /** keyed hash of the request: the same order_no with other content is refused */
  fingerprint: string;
  /** the request's hash as earlier versions kept it (the body as sent, or with its card data): asked on a mismatch */
  formerFingerprints?: () => readonly (string | undefined)[];
  meta?: Record<string, string>;
  /** 3-D Secure 2 browser data (hosted card page): kept on the payment and sent to the connector */
  browser?: BrowserInfo;
  /** the security code asked again for a saved card (a token payment); sent to the acquirer, never kept */
  tokenSecurityCode?: string;
  /** the proven shopper who consented to save the card sent (hosted card page, docs/checkout.md#saved-cards-for-returning-shoppers) */
  saveCardFor?: string;
  /** the shopper's saved card paid (its token is order.token_id): the token is not the payment's token_id */
  savedCardId?: string;
}

export interface ResolvedCard {
  pan: string;
  summary: CardSummary;
  securityCode?: string;
}

/** The card to charge: the one sent, or the vault's card behind token_id. */
export async function resolveCard(deps: CoreDeps, cmd: AuthoriseCommand): Promise<ResolvedCard> {
  const now = deps.clock.now();
  if (cmd.card) {
    const c = cmd.card;
    if (expiryPassed(c.expMonth, c.expYear, now))
      throw invalidField('expiration_year', 'the card has expired (expiration_month/expiration_year is in the past)');
    const summary = summariseCard(c.pan, c.expMonth.padStart(2, '0'), c.expYear);
    return c.securityCode === undefined ? { pan: c.pan, summary } : { pan: c.pan, summary, securityCode: c.securityCode };
  }
  const rec = await deps.store.getCard(cmd.account.merchant_id, cmd.order.token_id);
  if (!rec || rec.account_id !== cmd.account.account_id) throw invalidField('token_id', 'is not a card token of this account');
  if (expiryPassed(rec.card.exp_month, rec.card.exp_year, now)) throw invalidField('token_id', 'the card behind this token has expired');
  let pan: string;
  try {
    pan = deps.vault.open(rec);
  } catch {
    // sealed under a key no longer configured (or damaged): the merchant's token is unusable, not a server fault
    throw invalidField('token_id', 'the card behind this token can no longer be opened; ask the shopper for the card again');
  }
  return cmd.tokenSecurityCode ? { pan, summary: rec.card, securityCode: cmd.tokenSecurityCode } : { pan, summary: rec.card };
}

/** The vault tokens a payment by card makes: for token_flag or a subscription, and for a card the shopper saves. */
export interface KeptCards {
  /** the payment's vault fields (vault_token, vault_created, token_id, save_card) */
  fields: Partial<Payment>;
  records: VaultRecord[];
}

/**
 * What the card sent leaves in the vault, each under a token of its own: the merchant's token (token_flag YES or a
 * subscription) and the shopper's saved card are dropped apart (one removed from the page, the other still charged).
 * A payment with a saved card makes one only for a subscription's contract.
 */
export function keptCards(deps: CoreDeps, cmd: AuthoriseCommand, card: ResolvedCard, now: number): KeptCards {
  const { account, order } = cmd;
  const fields: Partial<Payment> = {};
  const records: VaultRecord[] = [];
  const keep = (token: string) =>
    records.push(deps.vault.record(token, account.merchant_id, account.account_id, card.pan, card.summary, now));
  if (!cmd.card) {
    // a subscription paid with a saved card keeps the card under a token of its own for the contract: the
    // shopper removing the saved card never stops the merchant's subscription (separate lifetimes)
    if (cmd.savedCardId && order.subscription !== undefined) {
      const token = deps.ids.token();
      keep(token);
      return { fields: { vault_token: token, vault_created: true }, records };
    }
    // a token payment charges the merchant's token (or the saved card's) as it is
    return {
      fields: cmd.savedCardId ? { vault_token: order.token_id } : { vault_token: order.token_id, token_id: order.token_id },
      records,
    };
  }
  if (order.token_flag === 'YES' || order.subscription !== undefined) {
    const token = deps.ids.token();
    keep(token);
    Object.assign(fields, { vault_token: token, vault_created: true }, order.token_flag === 'YES' ? { token_id: token } : {});
  }
  if (cmd.saveCardFor) {
    const token = deps.ids.token();
    keep(token);
    fields.save_card = { shopper_id: cmd.saveCardFor, token, card_hash: savedCardHash(deps.vault, card.pan) };
  }
  return { fields, records };
}

/**
 * Waits for a concurrent first attempt at the same order to finish, so every caller sees one answer. An
 * attempt whose holder died (a stale claim) is resolved here and now, through the acquirer's record.
 */
async function awaitOutcome(deps: CoreDeps, account: Account, p: Payment, cmd: AuthoriseCommand): Promise<Payment | PaymentResult> {
  let current = p;
  for (let waited = 0; current.status === S.PENDING && !current.threeds.challenge_pending && waited < 10_000; waited += 20) {
    // the acquirer took it and decides later: its answer is the pending payment, settled by webhook or recovery
    if (current.claim?.awaiting) return current;
    // a claim in its grace window is one recovery found the acquirer never saw: it waits for exactly this retry
    if (current.claim && (isStale(current.claim, deps.clock.now()) || current.claim.grace)) {
      if (current.claim.op !== 'authorise') await resolveStaleClaim(deps, account, current);
      else {
        const taken = await takeOver(deps, account, current, cmd);
        if (taken) return { ...taken, replayed: true };
      }
    } else await pause(deps.clock, 20);
    const read = await deps.store.getPayment(p.merchant_id, p.transaction_id);
    // never answered from memory: a payment whose record cannot be read back is not answered as if it existed
    if (!read) throw new GatewayError('STORE_UNAVAILABLE', 'could not read the payment back; try again');
    current = read;
  }
  return current;
}

async function replayOf(deps: CoreDeps, account: Account, cmd: AuthoriseCommand): Promise<PaymentResult | undefined> {
  const existing = await paymentOfOrder(deps, account.merchant_id, account.account_id, cmd.order.order_no);
  if (!existing) return undefined;
  if (!sameRequest(existing.fingerprint, cmd.fingerprint, cmd.formerFingerprints)) {
    throw new GatewayError('ORDER_CONFLICT', 'order_no: was already used for a different payment request', 'order_no');
  }
  if (existing.status === S.DECLINED && existing.never_sent) {
    const reopened = await reopen(deps, account, existing, cmd);
    if (reopened) return { ...reopened, replayed: true };
    return replayOf(deps, account, cmd);
  }
  const awaited = await awaitOutcome(deps, account, existing, cmd);
  if ('replayed' in awaited) return awaited;
  const payment = awaited;
  // recorded as never sent while this retry waited (recovery elsewhere closed the grace window): re-opened as above
  if (payment.status === S.DECLINED && payment.never_sent) return replayOf(deps, account, cmd);
  const contract = payment.recurring_id ? await deps.store.getContract(account.merchant_id, payment.recurring_id) : undefined;
  if (payment.threeds.challenge_pending) return { payment, issuerUrl: issuerUrl(deps.baseUrl, payment), replayed: true };
  return { payment, contract, replayed: true };
}

/** The risk verdict on an order paid with `card` (each attempt of a payment is assessed with its own card). */
export function orderRisk(account: Account, order: PaymentOrder, card: ResolvedCard): Payment['risk'] {
  return assessRisk(
    {
      amount: order.amount,
      shopper_email: order.shopper_email,
      shopper_ip: order.shopper_ip,
      billing_country: order.billing_country,
      delivery_country: order.delivery_country,
      device_fingerprint: order.device_fingerprint,
      card_brand: card.summary.brand,
    },
    account,
  );
}

/**
 * The direct payment (and the hosted card page's payment): idempotent on (account, order_no). The payment is
 * written as pending before the connector is asked, so a crash leaves a record, never a silent charge.
 */
export async function authorisePayment(deps: CoreDeps, cmd: AuthoriseCommand): Promise<PaymentResult> {
  const { account, order } = cmd;
  if (account.currencies.length > 0 && !account.currencies.includes(order.currency)) {
    throw invalidField('currency', `is not enabled for this account (${account.currencies.join(', ')})`);
  }
  await assertNotifyUrl(order.notify_url, deps.notifyAllowPrivate, deps.transport.resolve);
  // a direct payment's own return address must be on the account's origins (a checkout's is its result page)
  if (cmd.source === 'direct' && order.return_url && !returnUrlAllowed(account, order.return_url)) {
    throw invalidField('return_url', "must be on the account's website, storefront_domains or return_domains");
  }
  const connector = connectorFor(deps, account);
  // No read before the write: the order_no claim in the create step finds a repeat (one round trip less).
  // Except for an order_no that an earlier gateway masked otherwise (a UUID's or a hash's digits read as a card number):
  // its payment is indexed under that former form, which the claim does not see.
  if (orderForms(order.order_no).length > 1) {
    const replay = await replayOf(deps, account, cmd);
    if (replay) return replay;
  }
  const card = await resolveCard(deps, cmd);
  const now = deps.clock.now();
  const kept = keptCards(deps, cmd, card, now);
  const risk = orderRisk(account, order, card);
  const transactionId = deps.ids.transactionId();
  // the authorisation's claim is written with the payment: if this process dies before the outcome is
  // recorded, recovery asks the acquirer under the same reference (docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery)
  const claim = newClaim(deps, { op: 'authorise', reference: acquirerReference.authorise(transactionId), amount: order.amount }, now);
  const pending: Payment = withLaterFields({
    version: 0,
    transaction_id: transactionId,
    claim,
    written_by: `${claim.id}:create`,
    merchant_id: account.merchant_id,
    account_id: account.account_id,
    order_no: order.order_no,
    currency: order.currency,
    amount: order.amount,
    status: S.PENDING,
    result_code: RESULT.PENDING[0],
    fingerprint: cmd.fingerprint,
    source: cmd.source,
    card: card.summary,
    ...kept.fields,
    ...(order.subscription ? { subscription: order.subscription } : {}),
    // an acquirer with its own challenge page is told the return address when asked: its secret is made now
    threeds: connector.ownChallengePage
      ? { mode: order.open3d, challenge_pending: false, result: '', challenge_secret: newChallengeSecret() }
      : { mode: order.open3d, challenge_pending: false, result: '' },
    risk,
    connector: connector.displayName,
    captured: 0,
    refunded: 0,
    refunds: [],
    note: order.note,
    website: order.website || account.website,
    notify_url: order.notify_url,
    ...(order.return_url ? { return_url: order.return_url } : {}),
    shopper_email: order.shopper_email,
    ...(order.billing_country ? { billing_country: order.billing_country } : {}),
    created_at: now,
    updated_at: now,
    ...(cmd.meta ? { meta: cmd.meta } : {}),
    ...(cmd.browser ? { device: cmd.browser } : {}),
  });
  const verdict = await commitMarkedTold(
    deps,
    {
      merchantId: account.merchant_id,
      payments: [{ next: pending, expected: 0 }],
      cards: kept.records,
      due: [resolveDue(transactionId, claim.until)],
    },
    transactionId,
    pending.written_by!,
  );
  if (verdict === 'unwritten') throw new GatewayError('STORE_UNAVAILABLE', 'could not record the payment; nothing was written; try again');
  // the pending payment may be stored: recovery settles it, and the same order_no sent again gets its outcome
  if (verdict === 'unknown') throw recordingUnknown(deps, pending);
  if (verdict === 'conflict') {
    const raced = await replayOf(deps, account, cmd);
    if (raced) return raced;
    throw new GatewayError('STORE_UNAVAILABLE', 'could not record the payment; try again');
  }
  const payment: Payment = { ...pending, version: 1 };

  if (risk.action === 'REJECT') {
    return settleAuthorisation(deps, account, payment, { kind: 'rejected' }, 'payment');
  }
  return askAndSettle(deps, account, connector, payment, claim.reference, card, cmd, true);
}

/** Asks the acquirer to authorise the claimed payment under `reference`, and records the outcome. */
export async function askAndSettle(
  deps: CoreDeps,
  account: Account,
  connector: CardConnector,
  payment: Payment,
  reference: string,
  card: ResolvedCard,
  cmd: AuthoriseCommand,
  /** the payment was created under this claim just now: nothing can be kept under its reference yet */
  fresh = false,
): Promise<PaymentResult> {
  const { order } = cmd;
  const request = (): CardAuthorisation => ({
    reference,
    pan: card.pan,
    expMonth: card.summary.exp_month,
    expYear: card.summary.exp_year,
    ...(card.securityCode ? { securityCode: card.securityCode } : {}),
    amount: acquirerAmount(order.amount, order.currency),
    currency: order.currency,
    threeDS: order.open3d,
    ...(account.capture_mode === 'auto' && payment.risk.action !== 'REVIEW' ? { capture: true } : {}),
    ...(order.mpi ? { mpi: order.mpi } : {}),
    ...(cmd.browser ? { browser: cmd.browser } : {}),
    ...(connector.ownChallengePage && payment.threeds.challenge_secret ? { returnUrl: challengeReturnUrl(deps.baseUrl, payment) } : {}),
  });
  if (fresh && connector.authoriseInCommit) {
    // an acquirer in the gateway's store (the sandbox): its record is written with the outcome, in one
    // commit. A decision that failed left nothing anywhere: the acquirer is then asked as any other
    const decided = await connector.authoriseInCommit(request()).catch(() => undefined);
    if (decided) return settleAuthorisation(deps, account, payment, decided.outcome, 'payment', decided.record);
  }
  const outcome = await askOnce(connector, reference, () => connector.authorise(request()));
  if (outcome.kind === 'unknown') throw outcomeUnknown(deps, payment);
  return settleAuthorisation(deps, account, payment, outcome, 'payment');
}

/**
 * Writes a declined payment re-opened under a new claim (`reopened`, read at `declined.version`), with the cards
 * the new attempt keeps and the claim's recovery entry. false: another process moved it first; a commit whose
 * fate the store cannot tell is "try again".
 */
export async function commitReopened(
  deps: CoreDeps,
  declined: Payment,
  reopened: Payment,
  cards: ChangeSet['cards'],
  until: number,
): Promise<boolean> {
  const verdict = await commitMarkedTold(
    deps,
    {
      merchantId: declined.merchant_id,
      payments: [{ next: reopened, expected: declined.version }],
      cards,
      due: [resolveDue(declined.transaction_id, until)],
    },
    declined.transaction_id,
    reopened.written_by!,
  );
  if (verdict === 'unwritten') throw new GatewayError('STORE_UNAVAILABLE', 'could not record the payment; nothing was written; try again');
  if (verdict === 'unknown') throw recordingUnknown(deps, reopened);
  return verdict === 'applied';
}

/**
 * The merchant sent again an order recovery recorded as never sent (the acquirer had no record of it: nothing
 * was charged). Nothing that was kept may decline the retry (a store outage is "try again"): the payment is
 * re-opened under a new claim and its one reference, and the acquirer is asked with the card the retry carries.
 * undefined: another process re-opened it first (the caller reads the payment again).
 */
async function reopen(deps: CoreDeps, account: Account, declined: Payment, cmd: AuthoriseCommand): Promise<PaymentResult | undefined> {
  const card = await resolveCard(deps, cmd);
  const now = deps.clock.now();
  const reference = acquirerReference.authorise(declined.transaction_id, declined.attempt);
  const claim = newClaim(deps, { op: 'authorise', reference, amount: declined.amount }, now);
  const { never_sent: _n, ...rest } = declined;
  // the never-sent decline dropped the cards this payment kept (its token, the shopper's saved card): the retry,
  // which carries the card again, keeps them again, as the first attempt would have on approval
  const kept = cmd.card ? keptCards(deps, cmd, card, now) : { fields: {}, records: [] };
  const move = moveTo(rest, S.PENDING, now, {
    claim,
    written_by: `${claim.id}:reopen`,
    result_code: RESULT.PENDING[0],
    ...kept.fields,
  });
  if (!move.ok || !(await commitReopened(deps, declined, move.payment, kept.records, claim.until))) return undefined;
  deps.log.warn(
    { transaction_id: declined.transaction_id, merchant_id: declined.merchant_id },
    'never-sent authorisation re-opened by the order sent again',
  );
  const payment: Payment = { ...move.payment, version: declined.version + 1 };
  return askAndSettle(deps, account, connectorFor(deps, account), payment, reference, card, cmd);
}

/**
 * The merchant sent the same order again while its first attempt's claim is stale (the process that held it
 * died or stalled, or the store failed under it). What the acquirer did under the authorisation's reference
 * decides: its answer is recorded; with no record there (the acquirer was never asked), this request, which
 * carries the card again, takes the claim over and asks under the same reference. So an order the gateway could
 * not answer is approved once, under its one transaction, when the merchant asks again; never declined because
 * a process died. undefined: another process took it over first (the caller reads the payment again).
 */
async function takeOver(deps: CoreDeps, account: Account, stale: Payment, cmd: AuthoriseCommand): Promise<PaymentResult | undefined> {
  const connector = connectorFor(deps, account);
  const reference = stale.claim!.reference;
  let known: Awaited<ReturnType<CardConnector['status']>>;
  try {
    known = await connector.status(reference);
  } catch {
    // an acquirer that answers a repeat under the key with its first answer: the repeat below is the probe
    if (!connector.repeatIsStatus) throw outcomeUnknown(deps, stale);
    known = undefined;
  }
  if (known?.op === 'authorise') {
    // a challenge the acquirer started: the shopper answers it on the hosted page (the result says where)
    return settleAuthorisation(deps, account, stale, known.outcome, 'payment');
  }
  const card = await resolveCard(deps, cmd);
  const now = deps.clock.now();
  const claim = newClaim(deps, { op: 'authorise', reference, amount: stale.amount }, now);
  const claimed: Payment = { ...stale, claim, written_by: `${claim.id}:claim` };
  const verdict = await commitMarked(
    deps,
    {
      merchantId: stale.merchant_id,
      payments: [{ next: claimed, expected: stale.version }],
      due: [resolveDue(stale.transaction_id, claim.until)],
    },
    stale.transaction_id,
    claimed.written_by!,
  );
  // the payment is stored and pending either way: recovery settles it
  if (verdict === 'unknown') throw recordingUnknown(deps, stale);
  if (verdict === 'conflict') return undefined;
  const payment: Payment = { ...claimed, version: stale.version + 1 };
  if (payment.risk.action === 'REJECT') return settleAuthorisation(deps, account, payment, { kind: 'rejected' }, 'payment');
  deps.log.warn(
    { transaction_id: stale.transaction_id, merchant_id: stale.merchant_id },
    'stale authorisation taken over by the order sent again',
  );
  return askAndSettle(deps, account, connector, payment, reference, card, cmd);
}

/**
 * Answers the sandbox issuer's challenge for a payment waiting on 3-D Secure. The answer takes the payment's
 * claim first, so a cancel, the challenge-expiry sweep and a second answer each wait for it and then see its
 * outcome (docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery).
 */
export async function answerChallenge(deps: CoreDeps, account: Account, payment: Payment, code: string): Promise<PaymentResult> {
  const replay = async (p: Payment): Promise<PaymentResult> => {
    const contract: Contract | undefined = p.recurring_id ? await deps.store.getContract(account.merchant_id, p.recurring_id) : undefined;
    return { payment: p, contract, replayed: true };
  };
  const waiting = (p: Payment) => p.status === S.PENDING && p.threeds.challenge_pending && Boolean(p.connector_ref);
  if (!waiting(payment)) return replay(payment);
  const taken = await takeClaim<'answered'>(
    deps,
    account.merchant_id,
    payment.transaction_id,
    // the code is the intent's plan: a process that takes over a stalled answer sends it again under the same reference
    (p) =>
      waiting(p)
        ? {
            intent: {
              op: 'challenge',
              reference: acquirerReference.challenge(p.transaction_id, p.attempt),
              plan: { code: maskCardNumbers(code) },
            },
          }
        : { refusal: 'answered' },
    (stale) => resolveStaleClaim(deps, account, stale),
  );
  if (taken.kind === 'missing') return replay(payment);
  if (taken.kind !== 'claimed') return replay(taken.payment);
  // the shopper's return and notify addresses appended to issuer_url travel with the answer
  const claimed: Payment = {
    ...taken.payment,
    notify_url: taken.payment.notify_url || payment.notify_url,
    ...(taken.payment.return_url || !payment.return_url ? {} : { return_url: payment.return_url }),
  };
  const connector = connectorFor(deps, account);
  const reference = claimed.claim!.reference;
  const outcome = await askOnce(connector, reference, () => connector.completeChallenge(claimed.connector_ref!, code, reference));
  if (outcome.kind === 'unknown') throw outcomeUnknown(deps, claimed);
  return settleAuthorisation(deps, account, claimed, outcome, 'threeds');
}
