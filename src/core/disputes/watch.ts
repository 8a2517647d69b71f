import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { ChangeSet } from '../ports/store.js';
import type { Payment } from '../records/payment.js';
import { disputeStep } from './rules.js';

/**
 * The due step a capture adds, in its own commit, where the account's connector watches the payment for
 * disputes (the sandbox's dispute test cards): its disputes are asked for at once (disputes/steps.ts). Every
 * other capture adds nothing.
 */
export function disputeWatchOnCapture(
  deps: Pick<CoreDeps, 'connectors'>,
  account: Account,
  p: Payment,
  now: number,
): NonNullable<ChangeSet['due']> {
  if (!p.connector_ref) return [];
  const ops = deps.connectors.get(account.routing.connector_code, account)?.disputes;
  return ops?.watches(p.connector_ref) ? [{ queue: 'dispute', member: disputeStep.open(p.transaction_id), at: now }] : [];
}
