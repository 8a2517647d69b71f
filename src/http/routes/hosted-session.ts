import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/records/directory.js';
import type { CheckoutSession } from '../../core/records/session.js';

const SESSION_ID = /^cs_[0-9A-Za-z_-]{8,64}$/;

/** The stored session (and its account) named by a form post or a hosted page's address; undefined if none. */
export async function findSession(
  deps: CoreDeps,
  merchantId: unknown,
  sessionId: unknown,
): Promise<{ session: CheckoutSession; account: Account } | undefined> {
  if (typeof merchantId !== 'string' || typeof sessionId !== 'string') return undefined;
  if (merchantId.length === 0 || merchantId.length > 7 || !SESSION_ID.test(sessionId)) return undefined;
  const session = await deps.store.getCheckoutSession(merchantId, sessionId);
  if (!session) return undefined;
  const account = deps.merchants.find(session.merchant_id, session.account_id);
  return account ? { session, account } : undefined;
}
