import type { AcquirerStatus, AuthorisationOutcome } from '../../../src/core/ports/card-connector.js';
import { referenceKind } from '../../../src/core/acquirers/journal.js';
import { emptyBook, isAuthorisationOf, type AcquirerBook } from './books.js';
import type { Intent, StripeStub } from './stripe-stub.js';

/**
 * The Stripe stub's own records read as the gateway's terms, for the simulation's invariants: never through the
 * Stripe connector (whose reads may trail Stripe), always what the stub holds now.
 */

/** An intent's state as an authorisation's answer (pending while Stripe decides: processing). */
function authorisation(pi: Intent, approved: boolean): AuthorisationOutcome | undefined {
  switch (pi.status) {
    case 'requires_capture':
    case 'succeeded':
      return { kind: 'approved', connectorRef: pi.id, threedsResult: '' };
    case 'requires_action':
      return { kind: 'challenge', connectorRef: pi.id };
    case 'processing':
      return { kind: 'pending', connectorRef: pi.id };
    case 'requires_payment_method':
      return pi.last_payment_error ? { kind: 'declined', connectorRef: pi.id, reason: 'DECLINED', threedsResult: '' } : undefined;
    case 'canceled':
      // approved, then voided: the void's reference says so; never approved: the authorisation ended unpaid
      return approved
        ? { kind: 'approved', connectorRef: pi.id, threedsResult: '' }
        : { kind: 'declined', connectorRef: pi.id, reason: 'DECLINED', threedsResult: '' };
    default:
      return undefined;
  }
}

/** What Stripe did under a gateway reference, from the stub's records. */
export function stripeStatus(stub: StripeStub, reference: string): AcquirerStatus {
  stub.settle();
  const kind = referenceKind(reference);
  const authorisationRef =
    kind.op === 'authorise' ? reference : kind.op === 'challenge' ? reference.replace(/-3ds$/, '') : kind.transactionId;
  const pi = stub.intentFor(authorisationRef);
  if (!pi) return undefined;
  const asked = { amount: pi.amount, currency: pi.currency.toUpperCase() };
  switch (kind.op) {
    case 'authorise':
    case 'challenge': {
      const outcome = authorisation(pi, stub.approved.has(pi.id));
      if (!outcome || (kind.op === 'challenge' && outcome.kind === 'challenge')) return undefined;
      return { op: 'authorise', outcome, ...asked };
    }
    case 'capture': {
      // a capture request under this reference (an intent captured with its authorisation was never asked one)
      const captured = stub.captureReferences.get(pi.id) === reference ? stub.captures.find(([id]) => id === pi.id) : undefined;
      return captured
        ? { op: 'capture', outcome: { ok: true, connectorRef: pi.id }, amount: captured[1], currency: asked.currency }
        : undefined;
    }
    case 'void':
      return pi.status === 'canceled' ? { op: 'void', outcome: { ok: true, connectorRef: pi.id } } : undefined;
    case 'refund': {
      const refund = [...stub.refunds.values()].find((r) => r.metadata.gateway_reference === reference);
      if (!refund) return undefined;
      const ok = refund.status !== 'failed' && refund.status !== 'canceled';
      return {
        op: 'refund',
        outcome: ok ? { ok: true, connectorRef: refund.id } : { ok: false, message: `stripe: refund ${refund.status}` },
        amount: refund.amount,
        currency: asked.currency,
      };
    }
  }
}

/** Everything Stripe holds for a gateway payment: its intents, their captures, refunds and disputes. */
export function stripeBook(stub: StripeStub, transactionId: string): AcquirerBook {
  stub.settle();
  const book = emptyBook();
  const intents = [...stub.intents.values()].filter((pi) => isAuthorisationOf(pi.metadata.gateway_reference ?? '', transactionId));
  for (const pi of intents) {
    const reference = pi.metadata.gateway_reference!;
    book.objects[reference] = (book.objects[reference] ?? 0) + 1;
    if (!stub.approved.has(pi.id)) continue;
    book.authorised = pi.amount;
    book.held = pi.status !== 'canceled';
    book.captured += pi.amount_received;
    book.captures += stub.captures.filter(([id]) => id === pi.id).length;
  }
  const ids = new Set(intents.map((pi) => pi.id));
  for (const re of stub.refunds.values())
    if (ids.has(re.payment_intent))
      book.refunds.push({
        reference: re.metadata.gateway_reference ?? re.id,
        amount: re.amount,
        failed: re.status === 'failed' || re.status === 'canceled',
      });
  // a chargeback lost takes its amount (an inquiry takes nothing, whatever became of it)
  for (const dp of stub.disputes.values()) if (ids.has(dp.payment_intent)) book.disputed += stub.disputeTaken(dp);
  return book;
}
