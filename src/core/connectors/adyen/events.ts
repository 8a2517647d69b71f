import type { Types } from '@adyen/api-library';
import type { AcquirerEvent } from '../acquirer-events.js';
import { refusalReason } from './map.js';

type Item = Types.notification.NotificationRequestItem;

/**
 * An Adyen notification item in the gateway's terms. Adyen has no look-up by reference, so its final answers
 * are kept: AUTHORISATION under the payment's reference (merchantReference), CAPTURE, CANCELLATION and REFUND
 * under the modification's own reference (the gateway sends its reference as the modification's). A capture or
 * refund that failed later and chargebacks are logged for the operator; other event codes are acknowledged.
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
    case 'CAPTURE':
      return {
        ...base,
        reference,
        answer: {
          op: 'capture',
          outcome: success ? { ok: true, connectorRef: item.originalReference ?? item.pspReference } : failed,
          ...amount,
        },
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
      };
    case 'CAPTURE_FAILED':
    case 'REFUND_FAILED':
    case 'REFUNDED_REVERSED':
      return { ...base, unhandled: `${item.eventCode} for ${reference} (${item.reason || 'no reason given'})` };
    case 'CHARGEBACK':
    case 'NOTIFICATION_OF_CHARGEBACK':
    case 'REQUEST_FOR_INFORMATION':
      return { ...base, unhandled: `dispute ${item.eventCode} for payment ${item.originalReference ?? item.pspReference}` };
    default:
      return base;
  }
}
