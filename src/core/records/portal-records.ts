// The portal's records: a leaf file (imports only the merchants file's types), so that ports/store.ts can name
// them without an import circle.
import type { PortalRole } from './directory.js';

/** A signed-in portal user. Kept in the store under a hash of its token, so a store dump holds no live cookie. */
export interface PortalSession {
  version: number;
  /** sha-256 of the cookie's token */
  id: string;
  merchant_id: string;
  email: string;
  role: PortalRole;
  /** the secret that signs this session's one-time form tokens (forms.ts); never sent to the browser */
  csrf: string;
  /** passwordTag of the hash the user signed in with: another hash since then ends the session (as does none) */
  password_tag?: string;
  created_at: number;
  last_seen: number;
}

export type AuditAction =
  'capture' | 'cancel' | 'refund' | 'resend' | 'subscription_cancel' | 'password_change' | 'dispute_evidence' | 'dispute_accept';

/** What a portal user did, when, to what, and how it ended: shown on the payment's page and kept per merchant. */
export interface AuditRecord {
  id: string;
  at: number;
  merchant_id: string;
  account_id: string;
  email: string;
  action: AuditAction;
  /** the transaction_id, recurring_id or e-mail acted on */
  subject: string;
  /** the action's inputs as the user gave them (amounts as two-decimal text, the refund reason, notify_id) */
  detail: Record<string, string>;
  ok: boolean;
  /** the result as the API would word it (`V0000:Success`, `V3002:Refund amount exceeds ...`) */
  result: string;
}

/**
 * Failed sign-ins counted: per e-mail (whoever tries it; a day's window), per client address (a window of
 * minutes) and per (e-mail, address) pair (core/portal/throttle.ts has the rules).
 */
export interface LoginFailures {
  version: number;
  count: number;
  first_at: number;
  /** a pair's last counted attempt: its next check waits a delay that grows with `count` */
  last_at?: number;
  /** a pair's last right password: the address is one the user signs in from */
  signed_in_at?: number;
  /** an e-mail past its daily cap: when the last attempt of an unknown address went through */
  lane_at?: number;
}

export type ThrottleScope = 'user' | 'ip' | 'pair';

/** A password a user set for themselves in the portal; it replaces the merchants file's hash from then on. */
export interface PortalPassword {
  version: number;
  email: string;
  password_hash: string;
  changed_at: number;
}
