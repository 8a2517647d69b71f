import type Stripe from 'stripe';
import type {
  AcquirerBooks,
  BookAuthorisation,
  BookCapture,
  BookDispute,
  BookRefund,
  PaymentReferences,
} from '../../core/ports/acquirer-books.js';
import { AcquirerUnreachable, type AcquirerJournal } from '../../core/acquirers/journal.js';
import { REFERENCE_METADATA } from './map.js';
import { stripeDispute } from './events.js';

/** What reading Stripe's books needs of the connector. */
export interface StripeReads {
  stripe: Stripe;
  journal: AcquirerJournal;
  /** the intent whose metadata carries the reference, by Stripe's search (which trails its objects) */
  search(reference: string): Promise<string | undefined>;
  searchLagMs: number;
  now(): number;
}

/** More refunds or disputes than this on one payment are not read (a payment has at most 99 refunds of the gateway's). */
const LIST_LIMIT = 500;

/** Intent states in which Stripe is still acting: nothing about them is settled yet. */
const IN_FLIGHT: ReadonlySet<string> = new Set(['processing', 'requires_action', 'requires_confirmation']);

/**
 * Stripe's books of one payment (CardConnector.books), read with the official SDK: each attempt's
 * PaymentIntent (found by the id the journal kept, else by the payment's own, else by Stripe's search of its
 * metadata), the refunds of the payment's intent (`refunds.list` by `payment_intent`: also those made in
 * Stripe's Dashboard, without the gateway's reference) and its disputes (`disputes.list` by `payment_intent`).
 * An intent still processing, a refund pending and a reference sent whose intent the search does not show yet
 * are not final. Any failure to read is thrown as unknown.
 */
export async function stripeBooks(refs: PaymentReferences, reads: StripeReads): Promise<AcquirerBooks> {
  const call = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (err) {
      throw new AcquirerUnreachable('stripe', err);
    }
  };
  const txn = refs.transactionId;
  const attempts = Math.max(1, refs.attempts ?? 1);
  const authorisations: BookAuthorisation[] = [];
  let current: Stripe.PaymentIntent | undefined;
  for (let n = 1; n <= attempts; n++) {
    const reference = n > 1 ? `${txn}-a${n}` : txn;
    const id = await intentOf(reads, reference, n === attempts ? refs.connectorRef : undefined);
    if (id === 'unknown') {
      authorisations.push({ reference, status: 'pending', voided: false, final: false });
      continue;
    }
    if (id === undefined) continue;
    const pi = await call(() => reads.stripe.paymentIntents.retrieve(id));
    authorisations.push(authorisationOf(reference, pi));
    if (n === attempts) current = pi;
  }
  if (!current) return { authorisations, capture: { status: 'none', amount: 0, final: true }, refunds: [], disputes: [] };
  const intent = current.id;
  const [refunds, disputes] = await Promise.all([
    call(() => reads.stripe.refunds.list({ payment_intent: intent, limit: 100 }).autoPagingToArray({ limit: LIST_LIMIT })),
    call(() => reads.stripe.disputes.list({ payment_intent: intent, limit: 100 }).autoPagingToArray({ limit: LIST_LIMIT })),
  ]);
  return {
    authorisations,
    capture: captureOf(current),
    refunds: refunds.map(refundOf),
    disputes: disputes.map((d): BookDispute => ({ ...stripeDispute(d), final: true })),
  };
}

/**
 * The intent of an authorisation reference: the one the journal kept, else the payment's own (the last
 * attempt's), else Stripe's search; undefined when Stripe has none (never sent, or the search has caught up and
 * shows none); 'unknown' while the search may still trail a reference sent.
 */
async function intentOf(reads: StripeReads, reference: string, own: string | undefined): Promise<string | 'unknown' | undefined> {
  const kept = (await reads.journal.object(reference)) ?? own;
  if (kept) return kept;
  const sentAt = await reads.journal.sentAt(reference);
  if (sentAt === undefined) return undefined;
  const found = await reads.search(reference);
  if (found) return found;
  return reads.now() - sentAt < reads.searchLagMs ? 'unknown' : undefined;
}

/** An intent as an authorisation: approved once authorised (a cancelled one holds nothing: voided). */
function authorisationOf(reference: string, pi: Stripe.PaymentIntent): BookAuthorisation {
  const pending = IN_FLIGHT.has(pi.status);
  const approved = pi.status === 'requires_capture' || pi.status === 'succeeded' || pi.status === 'canceled';
  return {
    reference,
    connectorRef: pi.id,
    status: pending ? 'pending' : approved ? 'approved' : 'declined',
    amount: pi.amount,
    currency: pi.currency.toUpperCase(),
    voided: pi.status === 'canceled',
    final: !pending,
  };
}

function captureOf(pi: Stripe.PaymentIntent): BookCapture {
  if (pi.status === 'succeeded') return { status: 'succeeded', amount: pi.amount_received, final: true };
  if (pi.status === 'processing') return { status: 'pending', amount: pi.amount, final: false };
  return { status: 'none', amount: 0, final: !IN_FLIGHT.has(pi.status) };
}

function refundOf(r: Stripe.Refund): BookRefund {
  const status = r.status === 'succeeded' ? 'succeeded' : r.status === 'failed' || r.status === 'canceled' ? 'failed' : 'pending';
  const reference = r.metadata?.[REFERENCE_METADATA];
  return {
    ...(reference ? { reference } : {}),
    refundRef: r.id,
    amount: r.amount,
    currency: r.currency.toUpperCase(),
    status,
    final: status !== 'pending',
  };
}
