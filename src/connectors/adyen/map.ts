import type { Types } from '@adyen/api-library';
import type { AuthorisationOutcome, CardAuthorisation, DeclineReason } from '../../core/ports/card-connector.js';

type CardDetails = Types.checkout.CardDetails;

/** Adyen's test cards take any future expiry; these match its published test set. */
const TEST_EXPIRY = { expiryMonth: '03', expiryYear: '2030', cvc: '737' };

/**
 * docs/api.md#test-cards-and-risk-triggers's sandbox cards as Adyen's own test instruments (in its TEST environment): approvals as its test
 * cards, the 3-D Secure card as its 3-D Secure 2 test card, declines as its test card with the refusal
 * reason asked for in the holder name (Adyen's way of testing refusals).
 */
const ADYEN_TEST_CARDS: Record<string, Partial<CardDetails>> = {
  '4242424242424242': { number: '4111111111111111' },
  '4444333322221111': { number: '4111111111111111' },
  '5555555555554444': { number: '5555341244441115' },
  '4000000000000002': { number: '4111111111111111', holderName: 'DECLINED' },
  '4000000000009995': { number: '4111111111111111', holderName: 'NOT_ENOUGH_BALANCE' },
  '4000000000000069': { number: '4111111111111111', holderName: 'CARD_EXPIRED' },
  '4000000000000119': { number: '4111111111111111', holderName: 'ERROR' },
  '4000002500003155': { number: '4917610000000000' },
};

export function cardOf(req: CardAuthorisation, testMode: boolean): CardDetails {
  const test = testMode ? ADYEN_TEST_CARDS[req.pan] : undefined;
  if (test) return { type: 'scheme' as CardDetails['type'], ...TEST_EXPIRY, ...test };
  return {
    type: 'scheme' as CardDetails['type'],
    number: req.pan,
    expiryMonth: req.expMonth.padStart(2, '0'),
    expiryYear: req.expYear.length === 2 ? `20${req.expYear}` : req.expYear,
    ...(req.securityCode ? { cvc: req.securityCode } : {}),
  };
}

/** Adyen refusal reason codes with a reason of their own in the gateway (the rest are plain declines). */
const REFUSALS: Record<string, DeclineReason> = {
  '6': 'EXPIRED_CARD',
  '14': 'SUSPECTED_FRAUD',
  '20': 'SUSPECTED_FRAUD',
  '22': 'SUSPECTED_FRAUD',
  '11': 'THREEDS_FAILED',
  '12': 'INSUFFICIENT_FUNDS',
  '42': 'THREEDS_FAILED',
};

export function refusalReason(code: string | undefined, reason?: string): DeclineReason {
  if (code && REFUSALS[code]) return REFUSALS[code];
  if (reason && /not enough balance/i.test(reason)) return 'INSUFFICIENT_FUNDS';
  if (reason && /expired/i.test(reason)) return 'EXPIRED_CARD';
  if (reason && /fraud/i.test(reason)) return 'SUSPECTED_FRAUD';
  if (reason && /3d/i.test(reason)) return 'THREEDS_FAILED';
  return 'DECLINED';
}

/** What a /payments or /payments/details answer is in the gateway's terms; undefined for a result code it does not know. */
export function paymentOutcome(
  res: { resultCode?: string; pspReference?: string; refusalReason?: string; refusalReasonCode?: string; action?: { url?: string } | null },
  fallbackRef: string,
  threeds: string,
): AuthorisationOutcome | undefined {
  const connectorRef = res.pspReference ?? fallbackRef;
  switch (res.resultCode) {
    case 'Authorised':
      return { kind: 'approved', connectorRef, threedsResult: threeds };
    case 'Refused':
      return { kind: 'declined', connectorRef, reason: refusalReason(res.refusalReasonCode, res.refusalReason), threedsResult: threeds };
    case 'RedirectShopper':
    case 'ChallengeShopper':
    case 'IdentifyShopper':
      return { kind: 'challenge', connectorRef, ...(res.action?.url ? { redirectUrl: res.action.url } : {}) };
    case 'Cancelled':
    case 'Error':
      return { kind: 'error', message: `adyen: ${res.resultCode}${res.refusalReason ? ` (${res.refusalReason})` : ''}` };
    case 'Received':
    case 'Pending':
    case 'PresentToShopper':
      // Adyen took it and decides later, and says so by its AUTHORISATION notification
      return { kind: 'pending', connectorRef };
    default:
      return undefined;
  }
}
