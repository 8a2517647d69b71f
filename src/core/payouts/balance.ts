import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { DepositBalance } from '../records/payout.js';

/**
 * The deposit account's live balance in a currency. Before the first payout in it there is no record: the
 * opening balance from the merchants file stands, and the first commit creates the record (version 0).
 */
export async function readBalance(deps: Pick<CoreDeps, 'store'>, account: Account, currency: string, now: number): Promise<DepositBalance> {
  const stored = await deps.store.getBalance(account.merchant_id, account.account_id, currency);
  return (
    stored ?? {
      version: 0,
      merchant_id: account.merchant_id,
      account_id: account.account_id,
      currency,
      available: account.deposit_balance[currency] ?? 0,
      updated_at: now,
    }
  );
}

/** Bounded retries of a versioned commit that lost a race, with a little jitter so racers spread out. */
export const MAX_COMMIT_ATTEMPTS = 64;
export const jitter = (): Promise<void> => new Promise((r) => setTimeout(r, Math.floor(Math.random() * 4)));
