import type Stripe from 'stripe';
import type { AuthorisationOutcome, CardAuthorisation, DeclineReason } from '../../core/ports/card-connector.js';

/**
 * Stripe's answers in the gateway's terms (Hyperswitch's "transformers"): payment method data for a card,
 * a PaymentIntent as an authorisation outcome, and Stripe's decline codes as the gateway's reasons.
 */

/** The metadata key that carries the gateway's acquirer reference on every Stripe object it makes. */
export const REFERENCE_METADATA = 'gateway_reference';

/**
 * In test mode Stripe refuses raw card numbers (without the raw card data permission), so the sandbox test
 * cards of docs/api.md#test-cards-and-risk-triggers travel as Stripe's own test payment methods with the same behaviour. Any other number is
 * sent as it is (live mode, or a test account with raw card data enabled).
 */
export const STRIPE_TEST_INSTRUMENTS: Record<string, string> = {
  '4242424242424242': 'pm_card_visa',
  '4444333322221111': 'pm_card_visa',
  '5555555555554444': 'pm_card_mastercard',
  '4000000000000002': 'pm_card_chargeDeclined',
  '4000000000009995': 'pm_card_chargeDeclinedInsufficientFunds',
  '4000000000000069': 'pm_card_chargeDeclinedExpiredCard',
  '4000000000000119': 'pm_card_chargeDeclinedProcessingError',
  '4000002500003155': 'pm_card_authenticationRequired',
  '4000000000000259': 'pm_card_createDispute',
  '4000000000002685': 'pm_card_createDisputeProductNotReceived',
  '4000000000001976': 'pm_card_createDisputeInquiry',
};

export function paymentMethodOf(
  req: CardAuthorisation,
  testMode: boolean,
): Pick<Stripe.PaymentIntentCreateParams, 'payment_method' | 'payment_method_data'> {
  const instrument = testMode ? STRIPE_TEST_INSTRUMENTS[req.pan] : undefined;
  if (instrument) return { payment_method: instrument };
  // raw card data: the gateway sees card numbers (PCI DSS SAQ D, docs/connectors.md)
  const card = {
    number: req.pan,
    exp_month: Number(req.expMonth),
    exp_year: Number(req.expYear),
    ...(req.securityCode ? { cvc: req.securityCode } : {}),
  };
  return { payment_method_data: { type: 'card', card } as unknown as Stripe.PaymentIntentCreateParams.PaymentMethodData };
}

/** Stripe decline codes (charge.outcome / error.decline_code) that have a reason of their own. */
const DECLINE_CODES: Record<string, DeclineReason> = {
  insufficient_funds: 'INSUFFICIENT_FUNDS',
  expired_card: 'EXPIRED_CARD',
  authentication_required: 'THREEDS_FAILED',
  fraudulent: 'SUSPECTED_FRAUD',
  stolen_card: 'SUSPECTED_FRAUD',
  lost_card: 'SUSPECTED_FRAUD',
  pickup_card: 'SUSPECTED_FRAUD',
  merchant_blacklist: 'SUSPECTED_FRAUD',
};

export function declineReason(code: string | undefined): DeclineReason {
  return (code && DECLINE_CODES[code]) || 'DECLINED';
}

/** The 3-D Secure result Stripe reports on the intent's latest charge, when it expanded it. */
function threedsResultOf(pi: Stripe.PaymentIntent, asked: CardAuthorisation['threeDS'] | undefined): string {
  const charge = typeof pi.latest_charge === 'object' ? pi.latest_charge : null;
  const secure = charge?.payment_method_details?.card?.three_d_secure;
  if (secure) return secure.result === 'authenticated' ? 'authenticated' : `3-D Secure ${secure.result ?? 'attempted'}`;
  return asked === 'do3DS' ? 'authenticated (frictionless)' : 'not performed';
}

/**
 * A PaymentIntent's state as an authorisation: requires_capture (manual capture, the gateway's flow) or
 * succeeded is approved; requires_action a challenge; requires_payment_method after an attempt a decline;
 * processing is pending (Stripe decides later and says so by its payment_intent events). Undefined for a state
 * in which nothing was authorised and nothing will be without another request (requires_confirmation, or
 * requires_payment_method with no attempt).
 */
export function intentOutcome(pi: Stripe.PaymentIntent, asked?: CardAuthorisation['threeDS']): AuthorisationOutcome | undefined {
  switch (pi.status) {
    case 'requires_capture':
    case 'succeeded':
      return { kind: 'approved', connectorRef: pi.id, threedsResult: threedsResultOf(pi, asked) };
    case 'requires_action': {
      const redirect = pi.next_action?.redirect_to_url?.url ?? undefined;
      return { kind: 'challenge', connectorRef: pi.id, ...(redirect ? { redirectUrl: redirect } : {}) };
    }
    case 'requires_payment_method': {
      const error = pi.last_payment_error;
      if (!error) return undefined;
      const threeds = error.code === 'payment_intent_authentication_failure';
      return {
        kind: 'declined',
        connectorRef: pi.id,
        reason: threeds ? 'THREEDS_FAILED' : declineReason(error.decline_code || error.code),
        threedsResult: threeds ? 'authentication failed (challenge)' : threedsResultOf(pi, asked),
      };
    }
    case 'processing':
      return { kind: 'pending', connectorRef: pi.id };
    case 'canceled':
      return { kind: 'declined', connectorRef: pi.id, reason: 'DECLINED', threedsResult: 'not performed' };
    default:
      return undefined;
  }
}
