import { createHash, randomBytes } from 'node:crypto';
import { GatewayError, invalidField } from '../kernel/errors.js';
import type { CoreDeps } from '../ports/deps.js';
import { accountSchema, type AccountSettings, type PortalRole } from '../records/directory.js';
import type { MerchantRecord, OperatorAction, SignKeyRecord, StoredAccount } from '../records/merchant-record.js';

/** How long an invitation link lets its user set a password. */
export const INVITE_TTL_MS = 24 * 3_600_000;
/** Default and longest overlap of a rotated sign key. */
export const DEFAULT_OVERLAP_SECONDS = 86_400;
export const MAX_OVERLAP_SECONDS = 604_800;

type Deps = Pick<CoreDeps, 'store' | 'clock' | 'ids' | 'connectors' | 'baseUrl' | 'operators'>;

/** A new sign key: 32 random bytes as 43 base64url characters, shown once. */
function newKey(now: number, ids: CoreDeps['ids']): SignKeyRecord {
  return { key_id: ids.opaque('sk'), sign_key: randomBytes(32).toString('base64url'), created_at: now, expires_at: null };
}

/** What an operator sees of a merchant: its accounts' keys by id and dates only, never a key or a password. */
export function merchantView(m: MerchantRecord): Record<string, unknown> {
  return {
    merchant_id: m.merchant_id,
    name: m.name,
    status: m.status,
    accounts: m.accounts.map(accountView),
    portal_users: m.portal_users.map((u) => ({
      email: u.email,
      role: u.role,
      state: u.password_hash !== null ? 'active' : 'invited',
      ...(u.invite ? { invite_expires_at: iso(u.invite.expires_at) } : {}),
    })),
    created_at: iso(m.created_at),
    updated_at: iso(m.updated_at),
  };
}

function accountView(a: StoredAccount): Record<string, unknown> {
  const { sign_keys, ...settings } = a;
  return {
    ...settings,
    sign_keys: sign_keys.map((k) => ({
      key_id: k.key_id,
      created_at: iso(k.created_at),
      expires_at: k.expires_at === null ? null : iso(k.expires_at),
    })),
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The account settings as checked for the merchants file, every default filled in. */
function settingsOf(input: Record<string, unknown>, field: string): Omit<AccountSettings, 'sign_key'> {
  const prefix = field ? `${field}.` : '';
  const known = Object.keys(accountSchema.shape);
  for (const name of Object.keys(input)) {
    if (name === 'sign_key') throw invalidField(`${prefix}sign_key`, 'is made by the gateway (rotate it with sign-keys)');
    if (!known.includes(name)) throw invalidField(`${prefix}${name}`, 'is not an account setting');
  }
  // checked with a placeholder key: the gateway makes the real one
  const parsed = accountSchema.safeParse({ ...input, sign_key: 'x'.repeat(32) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = [field, ...issue.path.map(String)].filter(Boolean).join('.');
    throw invalidField(name, issue.message);
  }
  const { sign_key: _placeholder, ...settings } = parsed.data;
  return settings;
}

/** An account must route to a connector this gateway has for it (docs/operators.md: acquirers need their credentials at start). */
function checkRouting(deps: Deps, merchantId: string, name: string, settings: Omit<AccountSettings, 'sign_key'>, field: string): void {
  const account = { ...settings, sign_key: '', merchant_id: merchantId, merchant_name: name };
  if (!deps.connectors.get(settings.routing.connector_code, account))
    throw invalidField(`${field}routing.connector_code`, `names no connector of this gateway for this account`);
}

async function existing(deps: Deps, merchantId: string): Promise<MerchantRecord> {
  const m = await deps.store.registry().get(merchantId);
  if (!m) throw new GatewayError('NOT_FOUND', `merchant_id: no merchant ${merchantId}`, 'merchant_id');
  return m;
}

/** Saves one change with its audit record, then reads this process's view again: the change answers once it applies here. */
async function save(
  deps: Deps,
  operatorKeyId: string,
  next: MerchantRecord,
  expected: number,
  action: OperatorAction,
  changes: Record<string, unknown>,
): Promise<void> {
  const at = deps.clock.now();
  const audit = { id: deps.ids.opaque('oa'), at, operator_key_id: operatorKeyId, merchant_id: next.merchant_id, action, changes };
  if (!(await deps.store.registry().save({ ...next, updated_at: at }, expected, audit))) {
    if (expected === 0) throw new GatewayError('ALREADY_EXISTS', `merchant_id: merchant ${next.merchant_id} exists`, 'merchant_id');
    throw new GatewayError('MERCHANT_CHANGED', 'the merchant changed at the same moment in another call; read it and try again');
  }
  await deps.operators?.refresh();
}

export interface NewMerchant {
  merchant_id: string;
  name: string;
  accounts: Record<string, unknown>[];
}

/** Creates a merchant; each account gets a new sign key, which this answer alone shows. */
export async function createMerchant(deps: Deps, operatorKeyId: string, input: NewMerchant): Promise<Record<string, unknown>> {
  await deps.operators?.ready();
  const now = deps.clock.now();
  const seen = new Set<string>();
  const accounts = input.accounts.map((raw, i) => {
    const settings = settingsOf(raw, `accounts.${i}`);
    if (seen.has(settings.account_id)) throw invalidField(`accounts.${i}.account_id`, 'is listed twice');
    seen.add(settings.account_id);
    checkRouting(deps, input.merchant_id, input.name, settings, `accounts.${i}.`);
    return { ...settings, sign_keys: [newKey(now, deps.ids)] };
  });
  if (await deps.store.registry().get(input.merchant_id))
    throw new GatewayError('ALREADY_EXISTS', `merchant_id: merchant ${input.merchant_id} exists`, 'merchant_id');
  const record: MerchantRecord = {
    version: 0,
    merchant_id: input.merchant_id,
    name: input.name,
    status: 'active',
    accounts,
    portal_users: [],
    created_at: now,
    updated_at: now,
  };
  await save(deps, operatorKeyId, record, 0, 'merchant_created', { name: input.name, accounts: accounts.map((a) => a.account_id) });
  const view = merchantView(record);
  // the one answer that shows the keys
  (view.accounts as Record<string, unknown>[]).forEach((a, i) => (a.sign_key = accounts[i]!.sign_keys[0]!.sign_key));
  return view;
}

export async function getMerchant(deps: Deps, merchantId: string): Promise<Record<string, unknown>> {
  await deps.operators?.ready();
  return merchantView(await existing(deps, merchantId));
}

/** Renames, suspends or reactivates a merchant. */
export async function updateMerchant(
  deps: Deps,
  operatorKeyId: string,
  merchantId: string,
  patch: { name?: string; status?: 'active' | 'suspended' },
): Promise<Record<string, unknown>> {
  await deps.operators?.ready();
  const m = await existing(deps, merchantId);
  const next = {
    ...m,
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.status !== undefined ? { status: patch.status } : {}),
  };
  await save(deps, operatorKeyId, next, m.version, 'merchant_updated', { ...patch });
  return merchantView(next);
}

export async function addAccount(
  deps: Deps,
  operatorKeyId: string,
  merchantId: string,
  raw: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  await deps.operators?.ready();
  const m = await existing(deps, merchantId);
  const settings = settingsOf(raw, '');
  if (m.accounts.some((a) => a.account_id === settings.account_id))
    throw new GatewayError('ALREADY_EXISTS', `account_id: account ${settings.account_id} exists`, 'account_id');
  checkRouting(deps, m.merchant_id, m.name, settings, '');
  const account: StoredAccount = { ...settings, sign_keys: [newKey(deps.clock.now(), deps.ids)] };
  await save(deps, operatorKeyId, { ...m, accounts: [...m.accounts, account] }, m.version, 'account_created', {
    account_id: account.account_id,
  });
  return { ...accountView(account), sign_key: account.sign_keys[0]!.sign_key };
}

function accountIn(m: MerchantRecord, accountId: string): StoredAccount {
  const a = m.accounts.find((x) => x.account_id === accountId);
  if (!a) throw new GatewayError('NOT_FOUND', `account_id: no account ${accountId} of merchant ${m.merchant_id}`, 'account_id');
  return a;
}

/** Changes any account setting but its id and its keys; the whole account is checked again. */
export async function updateAccount(
  deps: Deps,
  operatorKeyId: string,
  merchantId: string,
  accountId: string,
  patch: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  await deps.operators?.ready();
  for (const field of ['account_id', 'sign_key', 'sign_keys'])
    if (field in patch)
      throw invalidField(field, field === 'account_id' ? 'cannot be changed' : 'is changed by rotating the sign key (sign-keys)');
  const m = await existing(deps, merchantId);
  const current = accountIn(m, accountId);
  const { sign_keys, ...settings } = current;
  const known = new Set(Object.keys(accountSchema.shape));
  for (const field of Object.keys(patch)) if (!known.has(field)) throw invalidField(field, 'is not an account setting');
  const merged = settingsOf({ ...settings, ...patch }, '');
  checkRouting(deps, m.merchant_id, m.name, merged, '');
  const next: StoredAccount = { ...merged, sign_keys };
  await save(deps, operatorKeyId, { ...m, accounts: m.accounts.map((a) => (a === current ? next : a)) }, m.version, 'account_updated', {
    account_id: accountId,
    ...patch,
  });
  return accountView(next);
}

/**
 * A new sign key for the account: it signs from now on; the one it replaces verifies until its expiry
 * (0: at once). Keys already past their expiry are dropped.
 */
export async function rotateSignKey(
  deps: Deps,
  operatorKeyId: string,
  merchantId: string,
  accountId: string,
  overlapSeconds: number,
): Promise<Record<string, unknown>> {
  await deps.operators?.ready();
  const m = await existing(deps, merchantId);
  const current = accountIn(m, accountId);
  const now = deps.clock.now();
  const previousExpires = now + overlapSeconds * 1000;
  const [newest, ...older] = current.sign_keys;
  const key = newKey(now, deps.ids);
  const kept = [{ ...newest!, expires_at: previousExpires }, ...older.filter((k) => k.expires_at !== null && k.expires_at > now)];
  const next: StoredAccount = { ...current, sign_keys: [key, ...kept.filter((k) => k.expires_at! > now)] };
  await save(deps, operatorKeyId, { ...m, accounts: m.accounts.map((a) => (a === current ? next : a)) }, m.version, 'sign_key_rotated', {
    account_id: accountId,
    key_id: key.key_id,
    previous_key_id: newest!.key_id,
    previous_expires_at: iso(previousExpires),
  });
  return { key_id: key.key_id, sign_key: key.sign_key, previous_expires_at: iso(previousExpires) };
}

export const inviteTokenHash = (token: string): string => createHash('sha256').update(`portal-invite\n${token}`).digest('hex');

/** Invites a portal user: a one-time link to set the password, valid 24 hours, shown in this answer only. */
export async function invitePortalUser(
  deps: Deps,
  operatorKeyId: string,
  merchantId: string,
  input: { email: string; role: PortalRole },
): Promise<Record<string, unknown>> {
  await deps.operators?.ready();
  const m = await existing(deps, merchantId);
  const email = input.email.toLowerCase();
  const taken =
    (deps.operators?.records() ?? []).some((r) => r.portal_users.some((u) => u.email === email)) ||
    m.portal_users.some((u) => u.email === email);
  if (taken) throw new GatewayError('ALREADY_EXISTS', `email: a portal user ${email} exists (an e-mail signs in to one merchant)`, 'email');
  const token = randomBytes(24).toString('base64url');
  const expiresAt = deps.clock.now() + INVITE_TTL_MS;
  const user = {
    email,
    role: input.role,
    password_hash: null,
    password_set_at: 0,
    invite: { token_hash: inviteTokenHash(token), expires_at: expiresAt },
  };
  await save(deps, operatorKeyId, { ...m, portal_users: [...m.portal_users, user] }, m.version, 'portal_user_invited', {
    email,
    role: input.role,
  });
  return {
    email,
    role: input.role,
    invite_url: `${deps.baseUrl}/portal/invite/${encodeURIComponent(merchantId)}/${token}`,
    invite_expires_at: iso(expiresAt),
  };
}

/** Removes a portal user: their sessions end at their next request (the user is no longer in the directory). */
export async function removePortalUser(deps: Deps, operatorKeyId: string, merchantId: string, emailInput: string): Promise<void> {
  await deps.operators?.ready();
  const m = await existing(deps, merchantId);
  const email = emailInput.trim().toLowerCase();
  if (!m.portal_users.some((u) => u.email === email))
    throw new GatewayError('NOT_FOUND', `email: no portal user ${email} of merchant ${merchantId}`, 'email');
  await save(
    deps,
    operatorKeyId,
    { ...m, portal_users: m.portal_users.filter((u) => u.email !== email) },
    m.version,
    'portal_user_removed',
    { email },
  );
}

/** The operators' audit, newest first: one merchant's or every merchant's. */
export async function auditOf(deps: Deps, merchantId: string | undefined, limit: number): Promise<Record<string, unknown>[]> {
  await deps.operators?.ready();
  const records = await deps.store.registry().audit(merchantId, limit);
  return records.map((r) => ({ ...r, at: iso(r.at) }));
}
