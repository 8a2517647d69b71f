import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { demoPortalPassword, type DemoPassword } from './demo-password.js';
import { availableParallelism } from 'node:os';
import { hashPasswordSync } from './core/portal/password.js';
import { z } from 'zod';
import express from 'express';
import { buildRateTable, DEFAULT_RATES, type RateTable } from './core/records/fx.js';
import type { ServerLimits } from './http/server.js';
import { addressBits } from './core/merchants/ip-allow.js';
import { defaultOperatorName, readOperatorLogo, type OperatorLogo } from './operator-branding.js';
import { DEFAULT_VAULT_KEY_ID, VAULT_KEY_ID_PATTERN, type VaultKey } from './core/records/vault.js';
import {
  merchantsFileSchema,
  type MerchantDirectory,
  type MerchantsFile,
  buildDirectory,
  demoMerchants,
} from './core/records/directory.js';

/** Thrown when a setting is wrong; main prints the message and exits non-zero. */
export class ConfigError extends Error {}

const boolFlag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''], {
    error: 'must be one of 1, true, yes, on (on) or 0, false, no, off (off)',
  })
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes' || v === 'on');

/**
 * A number setting sent empty (`AUTH_FAILURES_PER_MINUTE=` in an env file or a compose template) counts as not
 * set, so it takes its default: read as a number, it would be 0, which turns a limit off without a word.
 */
const unsetWhenBlank = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema);

/** A whole-number setting, refused in words that give its range (the validation library's own words name types). */
const wholeNumber = (fallback: number, min: number, max?: number, unit = '', note = '') => {
  const rule = `must be a whole number${unit}${max === undefined ? `, ${min} or more` : ` from ${min} to ${max}`}${note}`;
  const n = z.coerce.number({ error: rule }).int({ error: rule }).min(min, { error: rule });
  return unsetWhenBlank((max === undefined ? n : n.max(max, { error: rule })).default(fallback));
};

const MAX_RECONCILE_DAYS = 90;
const PENDING_RULE = 'must be a number of seconds from 0.1 to 86400';
const RECONCILE_DAYS_RULE = `must be a whole number of days from 0 (reconciliation off) to ${MAX_RECONCILE_DAYS}`;

const envSchema = z.object({
  PORT: wholeNumber(8080, 0, 65535, '', ', the TCP port to listen on'),
  HOST: z.string().min(1, { error: 'must be an address of this machine, or 0.0.0.0 for all of them' }).default('0.0.0.0'),
  BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// address, such as https://pay.example.com' }).optional(),
  REDIS_URL: z
    .string()
    .regex(/^(redis|rediss|redis\+cluster):\/\//, 'must start with redis://, rediss:// or redis+cluster://')
    .optional(),
  /** replicas that must confirm each commit (unset: 1 when the store has replicas, found at start; else 0) */
  REDIS_MIN_REPLICAS: z
    .string()
    .regex(/^\d{1,2}$/, 'must be a whole number from 0 to 99')
    .optional()
    .transform((v) => (v === undefined ? undefined : Number(v))),
  /** how long a commit waits for its replicas before its outcome is unknown (STORE_UNCONFIRMED) */
  REDIS_CONFIRM_MS: wholeNumber(500, 10, 60_000, ' of milliseconds'),
  /** how long one store command may take before the request is answered 503 (docs/operations.md) */
  STORE_TIMEOUT_MS: wholeNumber(1000, 50, 60_000, ' of milliseconds'),
  MERCHANTS_FILE: z.string().min(1).optional(),
  /** where the demo merchant's portal password is kept (no MERCHANTS_FILE); unset: .demo-portal-password in the project */
  DEMO_PORTAL_PASSWORD_FILE: z.string().trim().min(1, { error: 'must be a file path' }).optional(),
  FX_RATES_FILE: z.string().min(1).optional(),
  GATEWAY_TIMEZONE: z
    .string()
    .default('UTC')
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat('en-GB', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, 'must be an IANA time zone, such as UTC or Europe/Paris'),
  TRUST_PROXY: z.string().optional(),
  /** who runs the gateway, named on the hosted pages' trust line (unset: defaultOperatorName) */
  OPERATOR_NAME: z.string().trim().max(80, { error: 'must be at most 80 characters' }).optional(),
  /** the operator's logo beside that name: a file the gateway serves from its own origin */
  OPERATOR_LOGO_FILE: z.string().trim().optional(),
  NOTIFY_ALLOW_PRIVATE: boolFlag,
  VAULT_KEY: z.string().optional(),
  VAULT_KEYS: z.string().optional(),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of fatal, error, warn, info, debug, trace or silent',
    })
    .default('info'),
  NODE_ENV: z.string().default('production'),
  SHUTDOWN_GRACE_MS: wholeNumber(10_000, 0, undefined, ' of milliseconds'),
  /** after SIGTERM, how long /readyz answers 503 while requests are still served (docs/deployment.md) */
  SHUTDOWN_DRAIN_MS: wholeNumber(5_000, 0, 600_000, ' of milliseconds'),
  HEADERS_TIMEOUT_MS: wholeNumber(10_000, 100, 600_000, ' of milliseconds'),
  REQUEST_TIMEOUT_MS: wholeNumber(30_000, 100, 600_000, ' of milliseconds'),
  KEEP_ALIVE_TIMEOUT_MS: wholeNumber(65_000, 100, 600_000, ' of milliseconds'),
  MAX_CONNECTIONS: wholeNumber(1024, 0, undefined, '', ' (0: no limit)'),
  /** failed authentications a client address may make a minute before it is refused (429) */
  AUTH_FAILURES_PER_MINUTE: wholeNumber(300, 0, undefined, '', ' (0: no limit)'),
  METRICS_ALLOW: z.string().default('127.0.0.1,::1'),
  PENDING_RESOLVE_SECONDS: unsetWhenBlank(
    z.coerce.number({ error: PENDING_RULE }).min(0.1, { error: PENDING_RULE }).max(86_400, { error: PENDING_RULE }).default(60),
  ),
  /** how many days back reconciliation compares payments with the acquirer's books (0: off) */
  RECONCILE_DAYS: unsetWhenBlank(
    z.coerce
      .number({ error: RECONCILE_DAYS_RULE })
      .int({ error: RECONCILE_DAYS_RULE })
      .min(0, { error: RECONCILE_DAYS_RULE })
      .max(MAX_RECONCILE_DAYS, { error: RECONCILE_DAYS_RULE })
      .default(7),
  ),
  /** `id:secret,id:secret`: who may call /admin (unset: /admin is not served) */
  OPERATOR_KEYS: z.string().optional(),
  WORKERS: z
    .string()
    .default('1')
    .refine((v) => v === 'auto' || (/^[1-9]\d{0,2}$/.test(v) && Number(v) <= 256), 'must be a whole number from 1 to 256, or auto'),
});

/** METRICS_ALLOW: addresses or CIDR blocks that may read /metrics, comma-separated; `off` turns metrics off. */
function parseMetricsAllow(raw: string): string[] | null {
  if (raw.trim() === 'off') return null;
  const rules = raw
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  for (const rule of rules) {
    const [addr, prefix] = rule.split('/') as [string, string | undefined];
    const max = addr.includes(':') ? 128 : 32;
    if (addressBits(addr) === undefined || (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= max)))
      throw new ConfigError(`METRICS_ALLOW: ${rule} is not an address or CIDR block (or write off)`);
  }
  return rules;
}

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  redisUrl: string | undefined;
  /** REDIS_MIN_REPLICAS: replicas confirming each commit; undefined: 1 when the store has replicas at start, else 0 */
  redisMinReplicas: number | undefined;
  /** REDIS_CONFIRM_MS: how long a commit waits for them */
  redisConfirmMs: number;
  /** STORE_TIMEOUT_MS: the longest one store command may take */
  storeTimeoutMs: number;
  timezone: string;
  trustProxy: string | boolean | number | undefined;
  /** OPERATOR_NAME: who runs the gateway, named on the hosted pages (defaultOperatorName when unset) */
  operatorName: string;
  /** OPERATOR_LOGO_FILE, read at start: shown beside the operator's name, served from the gateway's own origin */
  operatorLogo?: OperatorLogo;
  notifyAllowPrivate: boolean;
  /** newest first: the first seals, any opens; the last keys request fingerprints */
  vaultKeys: VaultKey[];
  vaultKeyGenerated: boolean;
  logLevel: string;
  development: boolean;
  shutdownGraceMs: number;
  /** SHUTDOWN_DRAIN_MS: not ready, still serving, before the listener closes */
  shutdownDrainMs: number;
  serverLimits: ServerLimits;
  /** 0: no limit */
  authFailuresPerMinute: number;
  /** PENDING_RESOLVE_SECONDS: an outcome not recorded this long after its claim is resolved by recovery */
  pendingResolveMs: number;
  /** RECONCILE_DAYS in ms: how far back reconciliation looks for payments with acquirer activity (0: off) */
  reconcileWindowMs: number;
  /** WORKERS: gateway processes under one node:cluster primary (`auto`: one per available core) */
  workers: number;
  merchants: MerchantDirectory;
  /** the merchants file (or the demo merchant) as read: what the store is seeded with */
  merchantsSeed: MerchantsFile;
  merchantsFromFile: boolean;
  /** OPERATOR_KEYS; empty: /admin is not served */
  operatorKeys: { id: string; secret: string }[];
  /** the demo merchant's portal admin (no MERCHANTS_FILE): its password, kept across starts (demo-password.ts) and printed */
  demoPortal?: DemoPortal;
  fxRates: RateTable;
  /** callers allowed to read /metrics; null: metrics are off */
  metricsAllow: string[] | null;
}

function parseKeyBytes(raw: string, setting: string): Buffer {
  const text = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new ConfigError(`${setting}: must be 32 bytes written as 64 hex characters or base64`);
  return key;
}

/**
 * The vault's keys, newest first: VAULT_KEYS (`id:key,id:key`, the first the newest) followed by VAULT_KEY
 * under the id `k0` when both are set, so a rotation can start by adding VAULT_KEYS beside the old VAULT_KEY.
 */
function parseVaultKeys(single: string | undefined, list: string | undefined): VaultKey[] {
  const keys: VaultKey[] = [];
  const entries = list === undefined || list.trim() === '' ? [] : list.split(',');
  for (const [i, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    const id = entry.slice(0, Math.max(colon, 0)).trim();
    if (colon < 0 || !VAULT_KEY_ID_PATTERN.test(id)) {
      throw new ConfigError(`VAULT_KEYS: entry ${i + 1} must be <key id>:<key>, the id 1 to 32 letters, digits, - or _`);
    }
    if (keys.some((k) => k.id === id)) throw new ConfigError(`VAULT_KEYS: key id ${id} is listed twice`);
    keys.push({ id, key: parseKeyBytes(entry.slice(colon + 1), `VAULT_KEYS: key ${id}`) });
  }
  if (single !== undefined && single.trim() !== '') {
    const key = parseKeyBytes(single, 'VAULT_KEY');
    const same = keys.find((k) => k.id === DEFAULT_VAULT_KEY_ID);
    if (same && !same.key.equals(key)) {
      throw new ConfigError(`VAULT_KEYS: key id ${DEFAULT_VAULT_KEY_ID} is VAULT_KEY's id but holds another key`);
    }
    if (!same) keys.push({ id: DEFAULT_VAULT_KEY_ID, key });
  }
  return keys;
}

function parseTrustProxy(raw: string | undefined): string | boolean | number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  // read as Express reads it (its setting compiles the list at once), so a bad entry names the variable here
  // rather than failing the start later in a stack trace
  try {
    express().set('trust proxy', raw);
  } catch (err) {
    throw new ConfigError(
      `TRUST_PROXY: ${(err as Error).message} (true, false, a hop count, or a comma-separated list of addresses, subnets, loopback, linklocal or uniquelocal)`,
    );
  }
  return raw;
}

/** Branding logos are named relative to the merchants file; each must be a readable file of at most 256 KB. */
function resolveLogos(file: MerchantsFile, dir: string): void {
  for (const m of file.merchants)
    for (const a of m.accounts) {
      if (!a.branding.logo_file) continue;
      const full = resolve(dir, a.branding.logo_file);
      let size: number;
      try {
        size = statSync(full).size;
      } catch {
        throw new Error(`account ${a.account_id}: branding.logo_file: cannot read ${full}`);
      }
      if (size > 256 * 1024) throw new Error(`account ${a.account_id}: branding.logo_file: ${full} is over 256 KB`);
      a.branding.logo_file = full;
    }
}

export const DEMO_PORTAL_EMAIL = 'demo@shop.example';

export interface DemoPortal {
  email: string;
  password: string;
  /** the file the password is kept in; undefined: made for this run only (the file could not be written) */
  file: string | undefined;
}

function loadMerchants(
  path: string | undefined,
  baseUrl: string,
  passwordFile: string | undefined,
): {
  directory: MerchantDirectory;
  seed: MerchantsFile;
  fromFile: boolean;
  demoPortal?: DemoPortal;
} {
  if (!path) {
    let kept: DemoPassword;
    try {
      kept = demoPortalPassword(passwordFile);
    } catch (err) {
      throw new ConfigError(`DEMO_PORTAL_PASSWORD_FILE: ${(err as Error).message}`);
    }
    const { password } = kept;
    const demoPortal = { email: DEMO_PORTAL_EMAIL, password, file: kept.file };
    const seed = demoMerchants(baseUrl, { email: DEMO_PORTAL_EMAIL, password_hash: hashPasswordSync(password) });
    return { directory: buildDirectory(seed), seed, fromFile: false, demoPortal };
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`MERCHANTS_FILE: cannot read ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`MERCHANTS_FILE: ${path} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = merchantsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`MERCHANTS_FILE: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  try {
    resolveLogos(parsed.data, dirname(resolve(path)));
    return { directory: buildDirectory(parsed.data), seed: parsed.data, fromFile: true };
  } catch (err) {
    throw new ConfigError(`MERCHANTS_FILE: ${(err as Error).message}`);
  }
}

export const OPERATOR_KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** OPERATOR_KEYS: `id:secret,id:secret`, each secret at least 32 characters (docs/operators.md). */
function parseOperatorKeys(raw: string | undefined): { id: string; secret: string }[] {
  if (raw === undefined || raw.trim() === '') return [];
  const out: { id: string; secret: string }[] = [];
  for (const [i, entry] of raw.split(',').entries()) {
    const colon = entry.indexOf(':');
    const id = entry.slice(0, Math.max(colon, 0)).trim();
    const secret = entry.slice(colon + 1).trim();
    if (colon < 0 || !OPERATOR_KEY_ID.test(id))
      throw new ConfigError(`OPERATOR_KEYS: entry ${i + 1} must be <key id>:<secret>, the id 1 to 32 letters, digits, - or _`);
    if (secret.length < 32 || /\s/.test(secret))
      throw new ConfigError(`OPERATOR_KEYS: key ${id}: the secret must be at least 32 characters, no spaces`);
    if (out.some((k) => k.id === id)) throw new ConfigError(`OPERATOR_KEYS: key id ${id} is listed twice`);
    if (out.some((k) => k.secret === secret)) throw new ConfigError(`OPERATOR_KEYS: key ${id} has the secret of another key`);
    out.push({ id, secret });
  }
  return out;
}

/** The payout rate table: FX_RATES_FILE ({"base": "USD", "rates": {"EUR": "0.92"}}) or the built-in one. */
function loadRates(path: string | undefined): RateTable {
  if (!path) return buildRateTable(DEFAULT_RATES);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`FX_RATES_FILE: cannot read ${path} as JSON: ${(err as Error).message}`);
  }
  try {
    return buildRateTable(json);
  } catch (err) {
    throw new ConfigError(`FX_RATES_FILE: ${(err as Error).message}`);
  }
}

/** Settings whose value never appears in a message: they may hold a password or a key. */
const SECRET_SETTINGS = new Set(['REDIS_URL', 'VAULT_KEY', 'VAULT_KEYS']);

function operatorLogoOf(path: string | undefined): OperatorLogo | undefined {
  try {
    return readOperatorLogo(path);
  } catch (err) {
    throw new ConfigError(`OPERATOR_LOGO_FILE: ${(err as Error).message}`);
  }
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, V>);

/** Reads the environment once at start; any bad setting stops the start with a message naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = issue.path.join('.');
    // the value is repeated so a typo shows, except where it may hold a password or key
    const given = env[name];
    const shown = given === undefined || SECRET_SETTINGS.has(name) ? '' : ` (it is "${given.slice(0, 60)}")`;
    throw new ConfigError(`${name}: ${issue.message}${shown}`);
  }
  const e = parsed.data;
  const configured = parseVaultKeys(e.VAULT_KEY, e.VAULT_KEYS);
  if (e.REDIS_URL && configured.length === 0) {
    throw new ConfigError('VAULT_KEY: required when REDIS_URL is set (32 bytes, hex or base64), or VAULT_KEYS');
  }
  const workers = e.WORKERS === 'auto' ? availableParallelism() : Number(e.WORKERS);
  // each process would otherwise keep its own state: an in-memory store, or a demo portal password
  if (workers > 1 && !e.REDIS_URL)
    throw new ConfigError('WORKERS: more than one worker needs REDIS_URL (the embedded store is per process)');
  if (workers > 1 && !e.MERCHANTS_FILE)
    throw new ConfigError('WORKERS: more than one worker needs MERCHANTS_FILE (the demo merchant is made per process)');
  // the demo merchant's sign_key is printed and published: on a store that outlives the process, anyone
  // could sign payments and refunds that stay there
  if (e.REDIS_URL && !e.MERCHANTS_FILE && e.NODE_ENV !== 'development') {
    throw new ConfigError(
      "MERCHANTS_FILE: required with REDIS_URL in production (the demo merchant's sign_key is public): set MERCHANTS_FILE to your merchants file, or NODE_ENV=development to try the demo merchant on Redis",
    );
  }
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    throw new ConfigError('HEADERS_TIMEOUT_MS: must not be greater than REQUEST_TIMEOUT_MS');
  }
  const vaultKeys = configured.length > 0 ? configured : [{ id: DEFAULT_VAULT_KEY_ID, key: randomBytes(32) }];
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const { directory, seed, fromFile, demoPortal } = loadMerchants(e.MERCHANTS_FILE, baseUrl, e.DEMO_PORTAL_PASSWORD_FILE);
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    redisUrl: e.REDIS_URL,
    redisMinReplicas: e.REDIS_MIN_REPLICAS,
    redisConfirmMs: e.REDIS_CONFIRM_MS,
    storeTimeoutMs: e.STORE_TIMEOUT_MS,
    timezone: e.GATEWAY_TIMEZONE,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    operatorName: e.OPERATOR_NAME || defaultOperatorName(baseUrl),
    ...optional('operatorLogo', operatorLogoOf(e.OPERATOR_LOGO_FILE)),
    notifyAllowPrivate: e.NOTIFY_ALLOW_PRIVATE,
    vaultKeys,
    vaultKeyGenerated: configured.length === 0,
    logLevel: e.LOG_LEVEL,
    development: e.NODE_ENV === 'development',
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    serverLimits: {
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.MAX_CONNECTIONS,
    },
    authFailuresPerMinute: e.AUTH_FAILURES_PER_MINUTE,
    pendingResolveMs: Math.round(e.PENDING_RESOLVE_SECONDS * 1000),
    reconcileWindowMs: e.RECONCILE_DAYS * 86_400_000,
    workers,
    merchants: directory,
    merchantsSeed: seed,
    merchantsFromFile: fromFile,
    operatorKeys: parseOperatorKeys(e.OPERATOR_KEYS),
    ...(demoPortal ? { demoPortal } : {}),
    fxRates: loadRates(e.FX_RATES_FILE),
    metricsAllow: parseMetricsAllow(e.METRICS_ALLOW),
  };
}
