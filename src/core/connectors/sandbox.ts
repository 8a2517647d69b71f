import type { IdGenerator } from '../kernel/clock.js';
import type { AuthorisationOutcome, CardAuthorisation, CardConnector, DeclineReason, OperationOutcome } from '../ports/card-connector.js';

/** Test cards of DESIGN section 7. Any other valid number is approved. */
const DECLINES: Record<string, DeclineReason> = {
  '4000000000000002': 'DECLINED',
  '4000000000009995': 'INSUFFICIENT_FUNDS',
  '4000000000000069': 'EXPIRED_CARD',
};
const PROCESSING_ERROR = '4000000000000119';
const CHALLENGE = '4000002500003155';
export const SANDBOX_CHALLENGE_CODE = '123456';

/**
 * Operation failures on demand (docs/operations.md): a capture or refund of an amount whose cents are 13
 * (1.13, 10.13, ...) is refused, and so is a void of an authorisation made for such an amount.
 */
const FAILING_CENTS = 13;
const VOID_FAILS = 'sbxvf';
const failsFor = (amount: number): boolean => amount % 100 === FAILING_CENTS;

/**
 * The sandbox acquirer: deterministic answers from the test cards, no network. Its references carry the
 * challenge state, so it keeps nothing itself and several gateway processes agree.
 */
export class SandboxConnector implements CardConnector {
  readonly code = 'sandbox';
  readonly displayName = 'Sandbox';

  constructor(private ids: IdGenerator) {}

  async authorise(req: CardAuthorisation): Promise<AuthorisationOutcome> {
    const ref = this.ids.opaque(failsFor(req.amount) ? VOID_FAILS : 'sbx');
    if (req.pan === PROCESSING_ERROR) return { kind: 'error', message: 'sandbox: processing error' };
    const decline = DECLINES[req.pan];
    const mpiDone = Boolean(req.mpi?.cavv || req.mpi?.eci);
    if (req.pan === CHALLENGE && req.threeDS === 'do3DS' && !mpiDone && !req.recurring) {
      return { kind: 'challenge', connectorRef: `${ref}_3ds` };
    }
    const threedsResult = mpiDone
      ? 'authenticated externally'
      : req.threeDS === 'do3DS' && !req.recurring
        ? 'authenticated (frictionless)'
        : 'not performed';
    if (decline) return { kind: 'declined', connectorRef: ref, reason: decline, threedsResult };
    return { kind: 'approved', connectorRef: ref, threedsResult };
  }

  async completeChallenge(connectorRef: string, code: string): Promise<AuthorisationOutcome> {
    if (!connectorRef.endsWith('_3ds')) return { kind: 'error', message: 'sandbox: no challenge for this reference' };
    if (code === SANDBOX_CHALLENGE_CODE) {
      return { kind: 'approved', connectorRef, threedsResult: 'authenticated (challenge passed)' };
    }
    return { kind: 'declined', connectorRef, reason: 'THREEDS_FAILED', threedsResult: 'authentication failed (challenge)' };
  }

  async capture(connectorRef: string, amount: number): Promise<OperationOutcome> {
    if (failsFor(amount)) return { ok: false, message: 'sandbox: capture refused (amount cents 13)' };
    return { ok: true, connectorRef };
  }

  async void(connectorRef: string): Promise<OperationOutcome> {
    if (connectorRef.startsWith(`${VOID_FAILS}_`)) return { ok: false, message: 'sandbox: void refused (authorised amount cents 13)' };
    return { ok: true, connectorRef };
  }

  async refund(connectorRef: string, amount: number, _currency: string, reference: string): Promise<OperationOutcome> {
    if (failsFor(amount)) return { ok: false, message: 'sandbox: refund refused (amount cents 13)' };
    // like an acquirer that de-duplicates on the merchant reference: the same refund gets the same answer
    return { ok: true, connectorRef: `${connectorRef}_rf_${reference}` };
  }
}
