import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { Contract } from '../records/contract.js';
import { contractNotificationFields, outboxRecord } from '../notifications/outbox.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from '../kernel/signing.js';

/** The cancelsubscription answer (spec: JSON). */
export interface CancelSubscriptionAnswer {
  merchant_id: string;
  account_id: string;
  recurring_id: string;
  contract_name: string;
  cancel_status: '1' | '0';
  error_message: string;
  encryption_data: string;
}

const MAX_TRIES = 5;

function answer(account: Account, recurringId: string, contractName: string, ok: boolean, error: string): CancelSubscriptionAnswer {
  const body = {
    merchant_id: account.merchant_id,
    account_id: account.account_id,
    recurring_id: recurringId,
    contract_name: contractName,
    cancel_status: ok ? ('1' as const) : ('0' as const),
    error_message: error,
  };
  return { ...body, encryption_data: signFields(body, RESPONSE_SIGNATURE_FIELDS.cancelsubscription, account.sign_key) };
}

/**
 * Cancels a subscription at once: the contract becomes `Inactived` and no new charge is created. A charge
 * already created for the current period (a pending recurring payment) is still charged at its due time
 * unless that payment is cancelled with /v1/cancel, as docs/subscriptions.md says. An unknown contract, another account's,
 * a contract_name that does not match, or one no longer active is a result with cancel_status `0`.
 */
export async function cancelSubscription(
  deps: CoreDeps,
  account: Account,
  recurringId: string,
  contractName: string,
): Promise<CancelSubscriptionAnswer> {
  const m = account.merchant_id;
  for (let i = 0; i < MAX_TRIES; i++) {
    const c = await deps.store.getContract(m, recurringId);
    if (!c || c.account_id !== account.account_id)
      return answer(account, recurringId, contractName, false, 'recurring_id: no such subscription');
    if (contractName && contractName !== c.contract_name) {
      return answer(account, recurringId, contractName, false, 'contract_name: does not match the subscription');
    }
    if (c.status === 'Inactived' || c.status === 'Completed') {
      return answer(account, recurringId, c.contract_name, false, `subscription is already ${c.status}`);
    }
    const now = deps.clock.now();
    const next: Contract = { ...c, status: 'Inactived', cancelled_at: now, updated_at: now };
    if (!c.pending_charge) next.next_charge_at = null;
    const ok = await deps.store.commit({
      merchantId: m,
      contracts: [{ next, expected: c.version }],
      // a pending charge keeps its place in the queue: it is still executed at its due time
      ...(c.pending_charge ? {} : { due: [{ queue: 'contract_charge' as const, member: recurringId, at: null }] }),
      outbox: c.notify_url
        ? [
            {
              next: outboxRecord(deps, account, 'subscription_cancel', c.notify_url, {
                order_no: c.order_no,
                transaction_id: c.origin_transaction_id,
                ...contractNotificationFields(next, deps.timezone),
              }),
              expected: 0,
            },
          ]
        : [],
    });
    if (ok) {
      deps.log.info(
        { recurring_id: recurringId, merchant_id: m, pending_charge: c.pending_charge?.transaction_id },
        'subscription cancelled',
      );
      return answer(account, recurringId, c.contract_name, true, '');
    }
  }
  return answer(account, recurringId, contractName, false, 'the subscription is being changed; try again');
}
