import { createHash } from 'node:crypto';
import type { CoreDeps } from '../ports/deps.js';
import type { MerchantDirectory, PortalUser } from '../records/directory.js';
import { DEFAULT_COST, costOf, decoyHash, type HashCost } from './password.js';

/**
 * The hash that counts for a user now: their own new password, else the directory's. An own password older
 * than the directory's (set by an invitation after the user was removed and invited again) no longer counts.
 */
export async function currentHash(deps: CoreDeps, user: PortalUser): Promise<{ hash: string; version: number }> {
  const own = await deps.store.getPortalPassword(user.merchant_id, user.email);
  if (own && own.changed_at >= (user.password_set_at ?? 0)) return { hash: own.password_hash, version: own.version };
  return { hash: user.password_hash, version: own?.version ?? 0 };
}

/**
 * A short fingerprint of the hash a session was opened with: a session lives only while it is still the
 * user's hash, so a new password (in the portal or in the merchants file) ends every other session.
 */
export const passwordTag = (hash: string): string => createHash('sha256').update(hash).digest('base64url').slice(0, 22);

const decoys = new WeakMap<MerchantDirectory, string>();

/**
 * The decoy an unknown e-mail is checked against: at the cost most of the merchants file's users have (the
 * higher on a tie; the default with no users), so a guess at an unknown e-mail takes as long as one at a user.
 */
export function decoyFor(directory: MerchantDirectory): string {
  let decoy = decoys.get(directory);
  if (!decoy) {
    const seen = new Map<string, { cost: HashCost; users: number }>();
    for (const u of directory.portalUsers()) {
      const cost = costOf(u.password_hash);
      if (!cost) continue;
      const key = `${cost.ln},${cost.r},${cost.p}`;
      seen.set(key, { cost, users: (seen.get(key)?.users ?? 0) + 1 });
    }
    const work = (c: HashCost) => 2 ** c.ln * c.r * c.p;
    const [most] = [...seen.values()].sort((a, b) => b.users - a.users || work(b.cost) - work(a.cost));
    decoy = decoyHash(most?.cost ?? DEFAULT_COST);
    decoys.set(directory, decoy);
  }
  return decoy;
}

/** A new password is hashed at the cost of the user's hash in the merchants file: the operator's choice, and the decoy's. */
export const costForNewPassword = (user: PortalUser): HashCost => costOf(user.password_hash) ?? DEFAULT_COST;
