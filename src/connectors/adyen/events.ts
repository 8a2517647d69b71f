import type { Types } from '@adyen/api-library';
import type { AcquirerEvent } from '../../core/ports/acquirer-webhooks.js';
import type { AcquirerDispute } from '../../core/ports/card-connector.js';
import type { DisputeReason } from '../../core/records/dispute-record.js';
import { refusalReason } from './map.js';

type Item = Types.notification.NotificationRequestItem;

/**
 * An Adyen notification item in the gateway's terms. Adyen has no look-up by reference, so its final answers
 * are kept: AUTHORISATION (and OFFER_CLOSED, an offer never completed: declined) under the payment's
 * reference (merchantReference), CAPTURE, CANCELLATION and REFUND
 * under the modification's own reference (the gateway sends its reference as the modification's). A refund
 * that failed after Adyen accepted it (REFUND_FAILED, or REFUND with success false) is recorded on the
 * payment; dispute notifications (DISPUTE_EVENTS) open and move the gateway's disputes (docs/disputes.md), and
 * ISSUER_COMMENTS and NOTIFICATION_OF_FRAUD are acknowledged and logged. A capture failed later (CAPTURE_FAILED, or CAPTURE with success false) is
 * recorded on the payment (operations/capture-failed.ts); other event codes are acknowledged.
 * Adyen's own advice: an event is the same event when its code, PSP reference and success are.
 */
export function adyenEvent(item: Item): AcquirerEvent {
  const success = String(item.success) === 'true';
  const base = { id: `${item.eventCode}:${item.pspReference}:${success}`, type: String(item.eventCode) };
  const reference = item.merchantReference;
  const amount =
    item.amount?.value !== undefined
      ? { amount: item.amount.value, ...(item.amount.currency ? { currency: item.amount.currency } : {}) }
      : {};
  const failed = { ok: false as const, message: `adyen: ${item.reason || 'refused'}` };
  switch (String(item.eventCode)) {
    case 'AUTHORISATION':
      return {
        ...base,
        reference,
        object: item.pspReference,
        alsoChallenge: true,
        answer: {
          op: 'authorise',
          outcome: success
            ? { kind: 'approved', connectorRef: item.pspReference, threedsResult: 'reported by notification' }
            : {
                kind: 'declined',
                connectorRef: item.pspReference,
                reason: refusalReason(undefined, item.reason),
                threedsResult: 'reported by notification',
              },
          ...amount,
        },
      };
    case 'OFFER_CLOSED':
      // an offer still open closed without an authorisation: the shopper never completed it (a challenge whose
      // address the gateway never got, its answer lost), so nothing was authorised; Adyen closes open card offers
      // after 12 hours
      return {
        ...base,
        reference,
        object: item.pspReference,
        alsoChallenge: true,
        answer: {
          op: 'authorise',
          outcome: {
            kind: 'declined',
            connectorRef: item.pspReference,
            reason: 'THREEDS_FAILED',
            threedsResult: 'authentication not completed (offer closed)',
          },
          ...amount,
        },
      };
    case 'CAPTURE':
      return {
        ...base,
        reference,
        answer: {
          op: 'capture',
          outcome: success ? { ok: true, connectorRef: item.originalReference ?? item.pspReference } : failed,
          ...amount,
        },
        // a capture Adyen received and then could not make (success false): its failure, as CAPTURE_FAILED's
        ...(success ? {} : { captureFailed: { reason: `adyen: CAPTURE failed${item.reason ? ` (${item.reason})` : ''}` } }),
      };
    case 'CANCELLATION':
      return {
        ...base,
        reference,
        answer: { op: 'void', outcome: success ? { ok: true, connectorRef: item.originalReference ?? item.pspReference } : failed },
      };
    case 'REFUND':
      return {
        ...base,
        reference,
        answer: { op: 'refund', outcome: success ? { ok: true, connectorRef: item.pspReference } : failed, ...amount },
        // a refund Adyen received and then refused: its failure, recorded if the gateway took it as accepted
        ...(success ? {} : { refundFailed: { reason: failed.message } }),
      };
    case 'REFUND_FAILED':
    case 'REFUNDED_REVERSED':
      return {
        ...base,
        reference,
        refundFailed: { reason: `adyen: ${item.eventCode}${item.reason ? ` (${item.reason})` : ''}` },
        answer: { op: 'refund', outcome: failed, ...amount },
      };
    case 'CAPTURE_FAILED':
      return {
        ...base,
        reference,
        captureFailed: { reason: `adyen: ${item.eventCode}${item.reason ? ` (${item.reason})` : ''}` },
        answer: { op: 'capture', outcome: failed, ...amount },
      };
    case 'ISSUER_COMMENTS':
    case 'NOTIFICATION_OF_FRAUD':
      // the issuer's free text, and a fraud report (no chargeback, no money moved): nothing of a dispute moves
      return { ...base, unhandled: `${item.eventCode} on ${item.originalReference || item.pspReference}: ${DISPUTE_INFO[item.eventCode]}` };
    default:
      return Object.hasOwn(DISPUTE_EVENTS, String(item.eventCode)) ? { ...base, reference, dispute: adyenDispute(item) } : base;
  }
}

const DISPUTE_INFO: Readonly<Record<string, string>> = {
  ISSUER_COMMENTS: 'the issuer commented on the dispute; nothing moves',
  NOTIFICATION_OF_FRAUD: 'the issuer reported fraud without a chargeback; no dispute is opened',
};

/**
 * Adyen's dispute notifications as the gateway's reports: the status each means, and its stage in the
 * dispute's story (`order`: an earlier stage delivered after a later one changes nothing). INFORMATION_SUPPLIED
 * (the merchant's defence, sent in Adyen's Customer Area) comes at more than one stage, so it has none: it puts
 * an unanswered dispute under review and moves nothing else.
 */
const DISPUTE_EVENTS: Readonly<Record<string, { status: AcquirerDispute['status']; order?: number; openOnly?: true }>> = {
  REQUEST_FOR_INFORMATION: { status: 'inquiry', order: 10 },
  // the issuer let its inquiry lapse, or took the answer: no chargeback. After a chargeback (a later stage) it
  // moves nothing: CHARGEBACK_REVERSED gives the money back
  ISSUER_RESPONSE_TIMEFRAME_EXPIRED: { status: 'won', order: 15, openOnly: true },
  NOTIFICATION_OF_CHARGEBACK: { status: 'needs_response', order: 20 },
  // the amount is debited, the dispute still defendable
  CHARGEBACK: { status: 'needs_response', order: 30 },
  // not defended in time, or liability accepted at Adyen
  DISPUTE_DEFENSE_PERIOD_ENDED: { status: 'lost', order: 35 },
  CHARGEBACK_REVERSED: { status: 'won', order: 40 },
  SECOND_CHARGEBACK: { status: 'lost', order: 50 },
  PREARBITRATION_WON: { status: 'won', order: 60 },
  PREARBITRATION_LOST: { status: 'lost', order: 60 },
  INFORMATION_SUPPLIED: { status: 'under_review' },
};

/** Adyen's reason text in docs/disputes.md's reasons (its codes differ per scheme; the text names the kind). */
function disputeReason(text: string): DisputeReason {
  if (/fraud/i.test(text)) return 'fraudulent';
  if (/not received|non[- ]?receipt/i.test(text)) return 'product_not_received';
  if (/duplicate/i.test(text)) return 'duplicate';
  if (/cancel/i.test(text)) return 'subscription_canceled';
  if (/credit not processed/i.test(text)) return 'credit_not_processed';
  return 'general';
}

/**
 * An Adyen chargeback notification as the connector reports a dispute: one dispute per payment (its PSP
 * reference, originalReference), moved by each later notification of the dispute's life; its
 * additionalData.defensePeriodEndsAt (ISO 8601 with offset) is the dispute's due date.
 */
export function adyenDispute(item: Item): AcquirerDispute {
  const event = Object.hasOwn(DISPUTE_EVENTS, String(item.eventCode)) ? DISPUTE_EVENTS[String(item.eventCode)] : undefined;
  const ends = Date.parse(String((item.additionalData as Record<string, unknown> | undefined)?.defensePeriodEndsAt ?? ''));
  return {
    disputeRef: `chargeback:${item.originalReference || item.pspReference}`,
    reason: disputeReason(item.reason ?? ''),
    status: event?.status ?? 'needs_response',
    ...(event?.order !== undefined ? { order: event.order } : {}),
    ...(event?.openOnly ? { openOnly: true } : {}),
    ...(item.amount?.value !== undefined ? { amount: item.amount.value } : {}),
    ...(Number.isFinite(ends) ? { dueAt: ends } : {}),
  };
}
