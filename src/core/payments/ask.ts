import type { CoreDeps } from '../ports/deps.js';
import type { AuthorisationOutcome, CardConnector } from '../ports/card-connector.js';
import type { Payment } from '../records/payment.js';
import { GatewayError } from '../kernel/errors.js';

/** The acquirer was asked and neither its answer nor its record can be read: the outcome is unknown, never "no". */
export const UNKNOWN_OUTCOME = { kind: 'unknown' } as const;
export type AskedOutcome = AuthorisationOutcome | typeof UNKNOWN_OUTCOME;

/**
 * Asks the acquirer, and when the call throws (a timeout, a dropped line: it may have acted) reads its record
 * under the reference, then asks once more under the same reference. Only a definite "no record" after the
 * last try is a processing error (nothing was authorised); a record that cannot be read is UNKNOWN_OUTCOME.
 */
export async function askOnce(
  connector: CardConnector,
  reference: string,
  ask: () => Promise<AuthorisationOutcome>,
): Promise<AskedOutcome> {
  let message = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      return await ask();
    } catch (err) {
      message = (err as Error).message;
      let known: Awaited<ReturnType<CardConnector['status']>>;
      try {
        known = await connector.status(reference);
      } catch {
        return UNKNOWN_OUTCOME;
      }
      if (known?.op === 'authorise') return known.outcome;
    }
  }
  return { kind: 'error', message };
}

/** The answer to a payment whose authorisation outcome is unknown: it stays pending, and recovery settles it. */
export function outcomeUnknown(deps: CoreDeps, p: Payment): GatewayError {
  deps.log.error({ transaction_id: p.transaction_id, merchant_id: p.merchant_id }, 'acquirer outcome unknown; recovery settles it');
  return new GatewayError(
    'OUTCOME_UNKNOWN',
    'the acquirer did not answer; the payment is pending: ask again with the same order_no',
    undefined,
    5,
  );
}

/**
 * The answer to a payment the store may have written but could not confirm (or whose outcome it could not
 * record): it is pending if it was written, recovery settles it, and the same order_no sent again answers its
 * outcome. Never STORE_UNAVAILABLE, which says nothing was written (docs/error-codes.md).
 */
export function recordingUnknown(deps: CoreDeps, p: Payment): GatewayError {
  deps.log.error(
    { transaction_id: p.transaction_id, merchant_id: p.merchant_id },
    'payment record not confirmed by the store; recovery settles it',
  );
  return new GatewayError(
    'OUTCOME_UNKNOWN',
    'the store did not confirm the payment; if it was recorded it is pending and settled by recovery: ask again with the same order_no',
    undefined,
    5,
  );
}
