import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../merchants/directory.js';
import type { Contract } from '../subscriptions/contract.js';
import type { CardAuthorisation, CardConnector } from '../ports/card-connector.js';
import { GatewayError, invalidField } from '../kernel/errors.js';
import { PaymentStatus as S, type CardSummary, type Payment } from './payment.js';
import { assessRisk } from './risk.js';
import { expiryPassed, summariseCard } from '../kernel/cards.js';
import type { SubscriptionTerms } from '../subscriptions/contract.js';
import { RESULT } from '../kernel/result-codes.js';
import { issuerUrl, settleAuthorisation, type PaymentResult } from './settle.js';
import { assertNotifyUrl } from '../notifications/target.js';

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
  meta?: Record<string, string>;
}

export function connectorFor(deps: CoreDeps, account: Account): CardConnector {
  const connector = deps.connectors.get(account.routing.connector_code);
  if (!connector) throw new GatewayError('INTERNAL', `no connector ${account.routing.connector_code} for this account`);
  return connector;
}

/** The card to charge: the one sent, or the vault's card behind token_id. */
async function resolveCard(deps: CoreDeps, cmd: AuthoriseCommand): Promise<{ pan: string; summary: CardSummary; securityCode?: string }> {
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
  return { pan: deps.vault.open(rec.sealed), summary: rec.card };
}

/** Waits for a concurrent first attempt at the same order to finish, so every caller sees one answer. */
async function awaitOutcome(deps: CoreDeps, p: Payment): Promise<Payment> {
  let current = p;
  for (let waited = 0; current.status === S.PENDING && !current.threeds.challenge_pending && waited < 10_000; waited += 20) {
    await sleep(20);
    current = (await deps.store.getPayment(p.merchant_id, p.transaction_id)) ?? current;
  }
  return current;
}

async function replayOf(deps: CoreDeps, account: Account, cmd: AuthoriseCommand): Promise<PaymentResult | undefined> {
  const existing = await deps.store.findPaymentByOrder(account.merchant_id, account.account_id, cmd.order.order_no);
  if (!existing) return undefined;
  if (existing.fingerprint !== cmd.fingerprint) {
    throw new GatewayError('ORDER_CONFLICT', 'order_no: was already used for a different payment request', 'order_no');
  }
  const payment = await awaitOutcome(deps, existing);
  const contract = payment.recurring_id ? await deps.store.getContract(account.merchant_id, payment.recurring_id) : undefined;
  if (payment.threeds.challenge_pending) return { payment, issuerUrl: issuerUrl(deps.baseUrl, payment), replayed: true };
  return { payment, contract, replayed: true };
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
  const connector = connectorFor(deps, account);
  // No read before the write: the order_no claim in the create step finds a repeat (one round trip less).
  const card = await resolveCard(deps, cmd);
  const now = deps.clock.now();
  const keepCard = cmd.card !== undefined && (order.token_flag === 'YES' || order.subscription !== undefined);
  const vaultToken = keepCard ? deps.ids.token() : cmd.card ? undefined : order.token_id;
  const risk = assessRisk(
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
  const pending: Payment = {
    version: 0,
    transaction_id: deps.ids.transactionId(),
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
    ...(vaultToken ? { vault_token: vaultToken } : {}),
    ...(keepCard ? { vault_created: true } : {}),
    ...(order.token_flag === 'YES' || !cmd.card ? { token_id: vaultToken } : {}),
    ...(order.subscription ? { subscription: order.subscription } : {}),
    threeds: { mode: order.open3d, challenge_pending: false, result: '' },
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
  };
  const created = await deps.store.commit({
    merchantId: account.merchant_id,
    payments: [{ next: pending, expected: 0 }],
    cards: keepCard ? [deps.vault.record(vaultToken!, account.merchant_id, account.account_id, card.pan, card.summary, now)] : [],
  });
  if (!created) {
    const raced = await replayOf(deps, account, cmd);
    if (raced) return raced;
    throw new GatewayError('STORE_UNAVAILABLE', 'could not record the payment; try again');
  }
  const payment: Payment = { ...pending, version: 1 };

  if (risk.action === 'REJECT') {
    return settleAuthorisation(deps, account, payment, { kind: 'rejected' }, 'payment');
  }
  const outcome = await connector
    .authorise({
      reference: payment.transaction_id,
      pan: card.pan,
      expMonth: card.summary.exp_month,
      expYear: card.summary.exp_year,
      ...(card.securityCode ? { securityCode: card.securityCode } : {}),
      amount: order.amount,
      currency: order.currency,
      threeDS: order.open3d,
      ...(order.mpi ? { mpi: order.mpi } : {}),
    })
    .catch((err: unknown) => ({ kind: 'error' as const, message: (err as Error).message }));
  return settleAuthorisation(deps, account, payment, outcome, 'payment');
}

/** Answers the sandbox issuer's challenge for a payment waiting on 3-D Secure. */
export async function answerChallenge(deps: CoreDeps, account: Account, payment: Payment, code: string): Promise<PaymentResult> {
  if (payment.status !== S.PENDING || !payment.threeds.challenge_pending || !payment.connector_ref) {
    const contract: Contract | undefined = payment.recurring_id
      ? await deps.store.getContract(account.merchant_id, payment.recurring_id)
      : undefined;
    return { payment, contract, replayed: true };
  }
  const connector = connectorFor(deps, account);
  const outcome = await connector
    .completeChallenge(payment.connector_ref, code)
    .catch((err: unknown) => ({ kind: 'error' as const, message: (err as Error).message }));
  return settleAuthorisation(deps, account, payment, outcome, 'threeds');
}
