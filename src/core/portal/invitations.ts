import { GatewayError, invalidField } from '../kernel/errors.js';
import type { CoreDeps } from '../ports/deps.js';
import { hashPassword } from './password.js';
import { MIN_PASSWORD_LENGTH } from './users.js';
import type { MerchantRecord, StoredPortalUser } from '../records/merchant-record.js';
import { inviteTokenHash } from '../merchants/operators.js';

type Deps = Pick<CoreDeps, 'store' | 'clock' | 'ids' | 'operators'>;

const lapsed = (): GatewayError =>
  new GatewayError('NOT_FOUND', 'token: this invitation link is not valid or has lapsed; ask your operator for a new one', 'token');

/** The invited user a link names, read from the store (a link works on any process at once); undefined if none or lapsed. */
export async function openInvitation(
  deps: Deps,
  merchantId: string,
  token: string,
): Promise<{ merchant: MerchantRecord; user: StoredPortalUser } | undefined> {
  if (!/^[A-Za-z0-9_-]{1,7}$/.test(merchantId) || !/^[A-Za-z0-9_-]{20,64}$/.test(token)) return undefined;
  const merchant = await deps.store.registry().get(merchantId);
  const hash = inviteTokenHash(token);
  const user = merchant?.portal_users.find((u) => u.invite !== null && u.invite.token_hash === hash);
  if (!merchant || !user || user.invite!.expires_at <= deps.clock.now()) return undefined;
  return { merchant, user };
}

/**
 * The invited user sets their password: the link is spent in the same step, and the user can sign in on
 * every process within a second. A password the same e-mail set before it was removed no longer counts.
 */
export async function acceptInvitation(deps: Deps, merchantId: string, token: string, password: string): Promise<string> {
  const found = await openInvitation(deps, merchantId, token);
  if (!found) throw lapsed();
  if (password.length < MIN_PASSWORD_LENGTH) throw invalidField('new_password', `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > 200) throw invalidField('new_password', 'must be at most 200 characters');
  const { merchant, user } = found;
  const at = deps.clock.now();
  const next: StoredPortalUser = { ...user, password_hash: await hashPassword(password), password_set_at: at, invite: null };
  const saved = await deps.store
    .registry()
    .save({ ...merchant, portal_users: merchant.portal_users.map((u) => (u === user ? next : u)), updated_at: at }, merchant.version, {
      id: deps.ids.opaque('oa'),
      at,
      operator_key_id: 'invitation',
      merchant_id: merchant.merchant_id,
      action: 'portal_user_password_set',
      changes: { email: user.email },
    });
  if (!saved) throw lapsed();
  await deps.operators?.refresh();
  return user.email;
}
