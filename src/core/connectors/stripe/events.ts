import type Stripe from 'stripe';
import type { AcquirerEvent } from '../acquirer-events.js';
import { REFERENCE_METADATA } from './connector.js';

/**
 * A Stripe event in the gateway's terms. The intent's events name the authorisation's reference (its
 * metadata) and the intent: `status` then reads the intent directly instead of waiting for Stripe's search.
 * A refund failed later and a dispute are logged for the operator (not acted on yet); any other type is
 * acknowledged and ignored.
 */
export function stripeEvent(event: Stripe.Event): AcquirerEvent {
  const base = { id: event.id, type: event.type };
  const object = event.data.object as { id?: string; object?: string; metadata?: Record<string, string> | null; payment_intent?: unknown };
  const reference = object.metadata?.[REFERENCE_METADATA];
  switch (event.type) {
    case 'payment_intent.amount_capturable_updated':
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
    case 'payment_intent.canceled':
    case 'payment_intent.requires_action':
      return reference && object.id ? { ...base, reference, object: object.id } : base;
    case 'refund.failed':
      return {
        ...base,
        ...(reference ? { reference } : {}),
        unhandled: `refund ${object.id ?? ''} failed at Stripe after it was accepted`,
      };
    case 'charge.dispute.created':
    case 'charge.dispute.closed':
    case 'charge.dispute.updated':
      return { ...base, unhandled: `dispute ${object.id ?? ''} at Stripe (payment intent ${String(object.payment_intent ?? '')})` };
    default:
      return base;
  }
}
