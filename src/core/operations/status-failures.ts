import { PaymentStatus as S, type PaymentStatus } from '../records/payment.js';
import type { OrderOutcome } from './failures.js';

/** Why a payment in `status` cannot take an operation, for the statuses every operation refuses alike. */
export function closedStatusFailure(status: PaymentStatus): OrderOutcome | undefined {
  switch (status) {
    case S.CANCELLED:
      return 'CANCELLED';
    case S.EXPIRED:
      return 'EXPIRED';
    case S.DECLINED:
    case S.REJECTED:
    case S.THREEDS_FAILED:
      return 'NOT_APPROVED';
    default:
      return undefined;
  }
}
