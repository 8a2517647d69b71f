import type { AccountSettings, PortalRole } from './directory.js';

/** One sign key of an account: the newest signs; an older one verifies until its `expires_at` (docs/operators.md). */
export interface SignKeyRecord {
  key_id: string;
  sign_key: string;
  created_at: number;
  /** null: the current key (it does not expire until replaced) */
  expires_at: number | null;
}

/** An account as the store keeps it: its settings (defaults applied) and its sign keys, newest first. */
export type StoredAccount = Omit<AccountSettings, 'sign_key'> & { sign_keys: SignKeyRecord[] };

/** A portal user as the store keeps it: invited users have no password until they follow their link. */
export interface StoredPortalUser {
  email: string;
  role: PortalRole;
  password_hash: string | null;
  /** when the password above was set (0: from the merchants file); a password the user changed earlier counts only when newer */
  password_set_at: number;
  /** the open invitation: SHA-256 of its one-time token, and when it lapses */
  invite: { token_hash: string; expires_at: number } | null;
}

export type MerchantStatus = 'active' | 'suspended';

/** A merchant as the store keeps it: one record, changed as a whole in one atomic step. */
export interface MerchantRecord {
  version: number;
  merchant_id: string;
  name: string;
  status: MerchantStatus;
  accounts: StoredAccount[];
  portal_users: StoredPortalUser[];
  created_at: number;
  updated_at: number;
}

/** An operator's change, as the audit lists it: never a secret (sign keys, passwords, invitation tokens). */
export interface OperatorAuditRecord {
  id: string;
  at: number;
  /** the id of the operator key that made the change (`merchants-file` for the start's seed) */
  operator_key_id: string;
  merchant_id: string;
  action: OperatorAction;
  /** what changed: field names with their new values, secrets left out */
  changes: Record<string, unknown>;
}

export type OperatorAction =
  | 'merchant_seeded'
  | 'merchant_created'
  | 'merchant_updated'
  | 'account_created'
  | 'account_updated'
  | 'sign_key_rotated'
  | 'portal_user_invited'
  | 'portal_user_removed'
  | 'portal_user_password_set';

/** The account's current sign key (the first of its list). */
export const currentKey = (a: StoredAccount): SignKeyRecord => a.sign_keys[0]!;
