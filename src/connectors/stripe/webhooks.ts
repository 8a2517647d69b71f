import Stripe from 'stripe';
import type { AcquirerWebhooks, WebhookVerification } from '../../core/ports/acquirer-webhooks.js';
import { stripeEvent } from './events.js';
import { stripeEventProblem } from './event-shape.js';

/** Stripe's tolerance for a signature's timestamp (constructEvent's default): older is a replay. */
const TOLERANCE_S = 300;

/**
 * An account's Stripe webhooks, checked with its endpoint secret by Stripe's own check (constructEvent:
 * HMAC-SHA256 over "<t>.<body>", 300 s tolerance), which says why it refused: too old, or not signed with it.
 */
export function stripeWebhooks(stripe: Stripe, webhookSecret: string): AcquirerWebhooks {
  return {
    verify(body, header): WebhookVerification {
      const signature = header('stripe-signature');
      if (!signature) return { ok: false, refusal: { reason: 'no-signature', message: 'Stripe-Signature: the header is missing' } };
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(body, signature, webhookSecret, TOLERANCE_S);
      } catch (err) {
        if (err instanceof Stripe.errors.StripeSignatureVerificationError && /tolerance/i.test(err.message))
          return {
            ok: false,
            refusal: {
              reason: 'too-old',
              message: `Stripe-Signature: its timestamp is older than ${TOLERANCE_S} s (a replay, or a clock far off)`,
            },
          };
        return {
          ok: false,
          refusal: { reason: 'bad-signature', message: 'Stripe-Signature: does not match this account’s webhook secret' },
        };
      }
      return {
        ok: true,
        events: [{ id: String(event.id), type: String(event.type), problem: stripeEventProblem(event), read: () => stripeEvent(event) }],
      };
    },
  };
}
