import { directoryOf, type Account, type MerchantDirectory, type MerchantsFile, type PortalUser } from '../records/directory.js';
import type { MerchantRecord, StoredAccount } from '../records/merchant-record.js';

/** An account as the core sees it, from the store's record: the newest key signs, older ones in their overlap verify. */
export function accountOf(m: MerchantRecord, a: StoredAccount): Account {
  const { sign_keys: keyList, ...settings } = a;
  const [current, ...older] = keyList;
  return {
    ...settings,
    sign_key: current!.sign_key,
    sign_key_id: current!.key_id,
    former_sign_keys: older.flatMap((k) =>
      k.expires_at === null ? [] : [{ key_id: k.key_id, sign_key: k.sign_key, expires_at: k.expires_at }],
    ),
    merchant_id: m.merchant_id,
    merchant_name: m.name,
    merchant_status: m.status,
  };
}

/** The portal users who can sign in: an invited user without a password yet is nobody to the sign-in form. */
function usersOf(m: MerchantRecord): PortalUser[] {
  return m.portal_users.flatMap((u) =>
    u.password_hash === null
      ? []
      : [{ merchant_id: m.merchant_id, email: u.email, password_hash: u.password_hash, role: u.role, password_set_at: u.password_set_at }],
  );
}

/**
 * The merchants file as store records (the seed of what the store lacks). The file's keys get the id
 * `file-<account_id>`; an operator's rotation replaces them.
 */
export function recordsOfFile(file: MerchantsFile, now: number): MerchantRecord[] {
  return file.merchants.map((m) => ({
    version: 0,
    merchant_id: m.merchant_id,
    name: m.name,
    status: 'active',
    accounts: m.accounts.map(({ sign_key, ...settings }) => ({
      ...settings,
      sign_keys: [{ key_id: `file-${settings.account_id}`, sign_key, created_at: now, expires_at: null }],
    })),
    portal_users: (m.portal_users ?? []).map((u) => ({
      email: u.email.toLowerCase(),
      role: u.role,
      password_hash: u.password_hash,
      password_set_at: 0,
      invite: null,
    })),
    created_at: now,
    updated_at: now,
  }));
}

/** What of a merchant the file can say: compared to tell whether the store's copy differs from the file's. */
function comparable(m: MerchantRecord): string {
  return JSON.stringify({
    name: m.name,
    accounts: m.accounts.map(({ sign_keys, ...s }) => ({ ...s, sign_key: sign_keys[0]?.sign_key })),
    users: m.portal_users.map((u) => [u.email, u.role, u.password_hash]),
  });
}

/** Merchant ids whose copy in the store says something else than the file's. */
export function differingFromFile(file: readonly MerchantRecord[], stored: readonly MerchantRecord[]): string[] {
  const byId = new Map(stored.map((m) => [m.merchant_id, m]));
  return file.filter((f) => byId.has(f.merchant_id) && comparable(byId.get(f.merchant_id)!) !== comparable(f)).map((f) => f.merchant_id);
}

/**
 * The merchant directory every request reads: an in-memory view, replaced whole when the registry changes
 * (core/merchants/registry.ts keeps it fresh). Reading it costs a map lookup, never a store round trip.
 */
export class LiveDirectory implements MerchantDirectory {
  private view: MerchantDirectory;
  private records = new Map<string, MerchantRecord>();
  /** the registry version the view was built from (-1: the merchants file's, before the store was read) */
  loaded = -1;

  constructor(initial: MerchantDirectory) {
    this.view = initial;
  }

  /** Replaces the view with these records (read at `version`); an older version than the view's is ignored. */
  load(version: number, merchants: readonly MerchantRecord[]): void {
    if (version < this.loaded) return;
    const accounts = merchants.flatMap((m) => m.accounts.map((a) => accountOf(m, a)));
    this.view = directoryOf(accounts, merchants.flatMap(usersOf));
    this.records = new Map(merchants.map((m) => [m.merchant_id, m]));
    this.loaded = version;
  }

  /** The merchant's record as last read (operators' calls read the store itself before they change it). */
  record(merchantId: string): MerchantRecord | undefined {
    return this.records.get(merchantId);
  }

  /** Every merchant record as last read. */
  allRecords(): MerchantRecord[] {
    return [...this.records.values()];
  }

  find(merchantId: string, accountId: string): Account | undefined {
    return this.view.find(merchantId, accountId);
  }
  all(): Account[] {
    return this.view.all();
  }
  merchantIds(): string[] {
    return this.view.merchantIds();
  }
  accountsOf(merchantId: string): Account[] {
    return this.view.accountsOf(merchantId);
  }
  portalUser(email: string): PortalUser | undefined {
    return this.view.portalUser(email);
  }
  portalUsers(): PortalUser[] {
    return this.view.portalUsers();
  }
}
