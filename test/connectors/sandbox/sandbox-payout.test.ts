import { describe, expect, it } from 'vitest';
import { SandboxPayoutConnector } from '../../../src/connectors/sandbox/sandbox-payout.js';
import type { PayoutSubmission } from '../../../src/core/ports/payout-connector.js';

const sandbox = new SandboxPayoutConnector();
const submission = (account: string): PayoutSubmission => ({
  reference: 'T1',
  payment_method: 'LOCAL',
  amount: 1000,
  currency: 'USD',
  account_number: account,
  iban: '',
  swift_code: '',
  bank_country_code: 'US',
});

describe('the sandbox payout provider', () => {
  it('when the account is a failure trigger, then the transfer fails as docs/payouts.md says', async () => {
    expect(await sandbox.submit(submission('4000000003'))).toMatchObject({ accepted: false, failureType: 'COMPLIANCE_REJECTED' });
    const settles = await sandbox.submit(submission('4000000001'));
    expect(settles.accepted).toBe(true);
    expect(await sandbox.status((settles as { connectorRef: string }).connectorRef)).toMatchObject({
      state: 'failed',
      failureType: 'INVALID_BENEFICIARY_ACCOUNT',
    });
  });

  it.each(['constructor', 'toString', 'valueOf'])(
    'when the account is named %s (a member of Object, issue 36 finding 9), then it is no trigger: the transfer completes',
    async (account) => {
      const submitted = await sandbox.submit(submission(account));
      expect(submitted).toEqual({ accepted: true, connectorRef: 'sbxpo_T1' });
      expect(await sandbox.status(`sbxpo_T1_f${account}`)).toEqual({ state: 'completed' });
    },
  );
});
