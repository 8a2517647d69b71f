import type {
  PayoutConnector,
  PayoutFailure,
  PayoutSubmission,
  PayoutSubmitOutcome,
  PayoutTransferStatus,
} from '../../core/ports/payout-connector.js';

/**
 * Sandbox failure triggers, by beneficiary account number (or IBAN); docs/payouts.md lists them. Any other
 * account completes. REFUSED fails at submission; the others fail after processing.
 */
export const SANDBOX_PAYOUT_TRIGGERS: Readonly<Record<string, { at: 'submit' | 'settle' } & PayoutFailure>> = {
  '4000000001': { at: 'settle', failureType: 'INVALID_BENEFICIARY_ACCOUNT', failureReason: 'The beneficiary account does not exist' },
  '4000000002': { at: 'settle', failureType: 'BENEFICIARY_BANK_REJECTED', failureReason: 'The beneficiary bank returned the transfer' },
  '4000000003': { at: 'submit', failureType: 'COMPLIANCE_REJECTED', failureReason: 'Refused by compliance screening' },
  '4000000004': { at: 'settle', failureType: 'UNKNOWN', failureReason: 'Processing error at the provider' },
};

/** The trigger of an account number: own entries only (an account named `constructor` is no trigger). */
const triggerOf = (account: string) => (Object.hasOwn(SANDBOX_PAYOUT_TRIGGERS, account) ? SANDBOX_PAYOUT_TRIGGERS[account] : undefined);

/**
 * The sandbox bank-transfer provider: deterministic, no network. Its reference carries the outcome, so it
 * keeps nothing itself and several gateway processes agree.
 */
export class SandboxPayoutConnector implements PayoutConnector {
  readonly code = 'sandbox';

  async submit(req: PayoutSubmission): Promise<PayoutSubmitOutcome> {
    const account = req.account_number || req.iban;
    const trigger = triggerOf(account);
    if (trigger?.at === 'submit') return { accepted: false, failureType: trigger.failureType, failureReason: trigger.failureReason };
    const suffix = trigger ? `_f${account}` : '';
    return { accepted: true, connectorRef: `sbxpo_${req.reference}${suffix}` };
  }

  async status(connectorRef: string): Promise<PayoutTransferStatus> {
    const m = /_f(\w+)$/.exec(connectorRef);
    const trigger = m ? triggerOf(m[1]!) : undefined;
    if (trigger) return { state: 'failed', failureType: trigger.failureType, failureReason: trigger.failureReason };
    return { state: 'completed' };
  }
}
