import { returnUrlAllowed } from '../src/core/merchants/return-origins.js';
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../src/config.js';
import { composeCore } from '../src/compose.js';
import { hashPasswordSync } from '../src/core/portal/password.js';
import type { MerchantsFile } from '../src/core/records/directory.js';
import { ROOT } from './support/paths.js';

function merchantsFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-config-'));
  const path = join(dir, 'merchants.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('configuration (docs/configuration.md)', () => {
  it('when a number setting is sent empty (an env file’s VAR=), then it takes its default: never 0, which would turn a limit off', () => {
    const blank = loadConfig({
      PORT: '',
      AUTH_FAILURES_PER_MINUTE: '',
      MAX_CONNECTIONS: ' ',
      SHUTDOWN_GRACE_MS: '',
      PENDING_RESOLVE_SECONDS: '',
    });
    const unset = loadConfig({});
    expect(blank.port).toBe(8080);
    expect(blank.baseUrl).toBe('http://localhost:8080');
    expect(blank.authFailuresPerMinute).toBe(300);
    expect(blank.serverLimits.maxConnections).toBe(1024);
    expect(blank.shutdownGraceMs).toBe(10_000);
    expect(blank.pendingResolveMs).toBe(60_000);
    expect(blank.serverLimits).toEqual(unset.serverLimits);
    // a value that is there but not a number is still refused, naming the variable
    expect(() => loadConfig({ MAX_CONNECTIONS: 'many' })).toThrowError(/^MAX_CONNECTIONS: /);
  });

  it('when RECONCILE_DAYS is set, then it is the reconciliation window (0 turns it off); anything but 0 to 90 whole days stops the start naming it', () => {
    expect(loadConfig({}).reconcileWindowMs).toBe(7 * 86_400_000);
    expect(loadConfig({ RECONCILE_DAYS: '' }).reconcileWindowMs).toBe(7 * 86_400_000);
    expect(loadConfig({ RECONCILE_DAYS: '30' }).reconcileWindowMs).toBe(30 * 86_400_000);
    expect(loadConfig({ RECONCILE_DAYS: '0' }).reconcileWindowMs).toBe(0);
    for (const bad of ['week', '-1', '1.5', '91'])
      expect(() => loadConfig({ RECONCILE_DAYS: bad })).toThrowError(
        'RECONCILE_DAYS: must be a whole number of days from 0 (reconciliation off) to 90',
      );
  });

  it('when the demo merchant runs on another port, then its return URLs are the gateway itself on that port under any loopback name', () => {
    const account = loadConfig({ PORT: '9123' }).merchants.all()[0]!;
    for (const url of ['http://localhost:9123/', 'http://127.0.0.1:9123/shop/return', 'http://[::1]:9123/'])
      expect(returnUrlAllowed(account, url), url).toBe(true);
    for (const url of ['http://localhost:8080/', 'http://127.0.0.2:9123/', 'https://localhost:9123/'])
      expect(returnUrlAllowed(account, url), url).toBe(false);
    // a public BASE_URL is its own origin only
    const hosted = loadConfig({ BASE_URL: 'https://pay.example.com' }).merchants.all()[0]!;
    expect(returnUrlAllowed(hosted, 'https://pay.example.com/r')).toBe(true);
    expect(returnUrlAllowed(hosted, 'http://localhost:8080/')).toBe(false);
  });

  it('when nothing is set, then the gateway runs on the embedded store with the demo merchant on port 8080', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.host).toBe('0.0.0.0');
    expect(c.baseUrl).toBe('http://localhost:8080');
    expect(c.redisUrl).toBeUndefined();
    expect(c.timezone).toBe('UTC');
    expect(c.vaultKeyGenerated).toBe(true);
    expect(c.merchantsFromFile).toBe(false);
    expect(c.merchants.all()).toHaveLength(1);
    expect(c.workers).toBe(1);
    expect(c.metricsAllow).toEqual(['127.0.0.1', '::1']);
  });

  it('when the gateway runs on another port or address, then the demo merchant’s website and storefront are that origin', () => {
    const onPort = loadConfig({ PORT: '18680' }).merchants.all()[0]!;
    expect(onPort.website).toBe('http://localhost:18680');
    expect(onPort.storefront_domains).toEqual(['http://localhost:18680']);
    const behindProxy = loadConfig({ BASE_URL: 'https://pay.example.com/gateway/' }).merchants.all()[0]!;
    expect(behindProxy.website).toBe('https://pay.example.com');
    expect(behindProxy.storefront_domains).toEqual(['https://pay.example.com']);
  });

  it('when REDIS_URL is set without MERCHANTS_FILE in production, then the start stops naming the fix; in development the demo merchant runs on Redis', () => {
    const redis = { REDIS_URL: 'redis://127.0.0.1:6379', VAULT_KEY: 'ab'.repeat(32) };
    for (const env of [redis, { ...redis, NODE_ENV: 'production' }]) {
      expect(() => loadConfig(env)).toThrowError(ConfigError);
      expect(() => loadConfig(env)).toThrowError(/^MERCHANTS_FILE: required with REDIS_URL in production .*set MERCHANTS_FILE/);
    }
    const dev = loadConfig({ ...redis, NODE_ENV: 'development' });
    expect(dev.merchantsFromFile).toBe(false);
    expect(dev.redisUrl).toBe(redis.REDIS_URL);
  });

  it('when compose.yaml’s merchants-file template is used as shipped, then the start stops naming the sign_key to set; filled in, it loads', () => {
    const template = readFileSync(join(ROOT, 'config', 'merchants.example.json'), 'utf8');
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', VAULT_KEY: 'ab'.repeat(32) };
    expect(() => loadConfig({ ...env, MERCHANTS_FILE: merchantsFile(template) })).toThrowError(
      /^MERCHANTS_FILE: merchants\.0\.accounts\.0\.sign_key: must be at least 8 characters/,
    );
    const filled = JSON.parse(template) as MerchantsFile;
    filled.merchants[0]!.accounts[0]!.sign_key = randomBytes(32).toString('hex');
    expect(() => loadConfig({ ...env, MERCHANTS_FILE: merchantsFile(filled) })).toThrowError(/portal_users\.0\.password_hash/);
    filled.merchants[0]!.portal_users[0]!.password_hash = hashPasswordSync('a long passphrase');
    const config = loadConfig({ ...env, MERCHANTS_FILE: merchantsFile(filled) });
    expect(config.merchants.all()[0]).toMatchObject({ account_id: '1000001001', allowed_ips: ['203.0.113.10'] });
  });

  it('when WORKERS is auto, then there is one worker per available core', async () => {
    const { availableParallelism } = await import('node:os');
    const file = merchantsFile({
      merchants: [{ merchant_id: '1000002', name: 'Shop', accounts: [{ account_id: '1000002001', sign_key: 'longenough' }] }],
    });
    const withRedis = { REDIS_URL: 'redis://127.0.0.1:6379', VAULT_KEY: 'ab'.repeat(32), MERCHANTS_FILE: file };
    expect(loadConfig({ ...withRedis, WORKERS: 'auto' }).workers).toBe(availableParallelism());
    expect(loadConfig({ ...withRedis, WORKERS: '3' }).workers).toBe(3);
  });

  it.each([
    [{ PORT: 'eighty' }, /^PORT/],
    [{ GATEWAY_TIMEZONE: 'Mars/Olympus' }, /^GATEWAY_TIMEZONE/],
    [{ REDIS_URL: 'http://x' }, /^REDIS_URL/],
    [{ REDIS_URL: 'redis://127.0.0.1:6379' }, /^VAULT_KEY: required/],
    [{ VAULT_KEY: 'short' }, /^VAULT_KEY/],
    [{ BASE_URL: 'not a url' }, /^BASE_URL/],
    [{ MERCHANTS_FILE: '/nonexistent/merchants.json' }, /^MERCHANTS_FILE: cannot read/],
    [{ METRICS_ALLOW: '127.0.0.1,not-an-address' }, /^METRICS_ALLOW: not-an-address/],
    [{ METRICS_ALLOW: '10.0.0.0/33' }, /^METRICS_ALLOW: 10\.0\.0\.0\/33/],
    [{ VAULT_KEYS: `k1${'ab'.repeat(32)}` }, /^VAULT_KEYS: entry 1 must be <key id>:<key>/],
    [{ VAULT_KEYS: `k1:${'ab'.repeat(32)},k.2:${'cd'.repeat(32)}` }, /^VAULT_KEYS: entry 2 must be/],
    [{ VAULT_KEYS: `k1:${'ab'.repeat(32)},` }, /^VAULT_KEYS: entry 2 must be/],
    [{ VAULT_KEYS: 'k1:short' }, /^VAULT_KEYS: key k1: must be 32 bytes/],
    [{ VAULT_KEYS: `k1:${'ab'.repeat(32)},k1:${'cd'.repeat(32)}` }, /^VAULT_KEYS: key id k1 is listed twice/],
    [{ VAULT_KEYS: `k0:${'ab'.repeat(32)}`, VAULT_KEY: 'cd'.repeat(32) }, /^VAULT_KEYS: key id k0 is VAULT_KEY's id but holds another key/],
    [{ WORKERS: '0' }, /^WORKERS: must be a whole number from 1 to 256, or auto/],
    [{ WORKERS: 'many' }, /^WORKERS: must be/],
    [{ WORKERS: '2' }, /^WORKERS: more than one worker needs REDIS_URL/],
    [
      { WORKERS: '2', REDIS_URL: 'redis://127.0.0.1:6379', VAULT_KEY: 'ab'.repeat(32) },
      /^WORKERS: more than one worker needs MERCHANTS_FILE/,
    ],
  ])('when %j is set, then the start stops with a message naming it', (env, message) => {
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrowError(ConfigError);
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrowError(message);
  });

  it('when the merchants file is malformed, then the message names the file and the bad setting', () => {
    expect(() => loadConfig({ MERCHANTS_FILE: merchantsFile('{nope') })).toThrowError(/MERCHANTS_FILE: .* is not valid JSON/);
    const bad = { merchants: [{ merchant_id: '12345678', name: 'x', accounts: [{ account_id: 'a', sign_key: 'longenough' }] }] };
    expect(() => loadConfig({ MERCHANTS_FILE: merchantsFile(bad) })).toThrowError(/MERCHANTS_FILE: merchants\.0\.merchant_id/);
    const badIp = {
      merchants: [{ merchant_id: '1', name: 'x', accounts: [{ account_id: 'a', sign_key: 'longenough', allowed_ips: ['nope'] }] }],
    };
    expect(() => loadConfig({ MERCHANTS_FILE: merchantsFile(badIp) })).toThrowError(/allowed_ips\.0/);
  });

  it('when a good merchants file and VAULT_KEY are given, then accounts get documented defaults', () => {
    const file = {
      merchants: [{ merchant_id: '1000002', name: 'Shop', accounts: [{ account_id: '1000002001', sign_key: 'longenough' }] }],
    };
    const c = loadConfig({ MERCHANTS_FILE: merchantsFile(file), VAULT_KEY: 'ab'.repeat(32), PORT: '9090' });
    const a = c.merchants.find('1000002', '1000002001')!;
    expect(a.capture_mode).toBe('manual');
    expect(a.auth_window_days).toBe(7);
    expect(a.routing.connector_code).toBe('sandbox');
    expect(c.vaultKeys.map((k) => [k.id, k.key.length])).toEqual([['k0', 32]]);
    expect(c.baseUrl).toBe('http://localhost:9090');
    expect(c.merchants.find('1000002', 'other')).toBeUndefined();
  });

  it('when an account routes to a connector that is not registered, then the start stops with a message naming it', () => {
    const file = {
      merchants: [
        {
          merchant_id: '1000002',
          name: 'Shop',
          accounts: [
            { account_id: '1000002001', sign_key: 'longenough' },
            { account_id: '1000002002', sign_key: 'longenough', routing: { connector_code: 'acme-bank' } },
          ],
        },
      ],
    };
    const config = loadConfig({ MERCHANTS_FILE: merchantsFile(file) });
    const compose = () => composeCore(config, pino({ enabled: false }));
    expect(compose).toThrowError(ConfigError);
    expect(compose).toThrowError(/^MERCHANTS_FILE: account 1000002\/1000002002: routing\.connector_code "acme-bank" names no connector/);
    const good = loadConfig({
      MERCHANTS_FILE: merchantsFile({ merchants: [{ ...file.merchants[0], accounts: [file.merchants[0]!.accounts[0]] }] }),
    });
    expect(composeCore(good, pino({ enabled: false })).connectors.get('sandbox')).toBeDefined();
  });

  it('when VAULT_KEYS lists keys, then they are taken newest first, with VAULT_KEY after them as k0 when both are set', () => {
    const k2 = randomBytes(32);
    const k1 = randomBytes(32);
    const old = randomBytes(32);
    const only = loadConfig({
      VAULT_KEYS: `k2:${k2.toString('base64')}, k1:${k1.toString('hex')}`,
      REDIS_URL: 'redis://127.0.0.1:1',
      NODE_ENV: 'development',
    });
    expect(only.vaultKeyGenerated).toBe(false);
    expect(only.vaultKeys).toEqual([
      { id: 'k2', key: k2 },
      { id: 'k1', key: k1 },
    ]);
    const both = loadConfig({ VAULT_KEYS: `k1:${k1.toString('hex')}`, VAULT_KEY: old.toString('hex') });
    expect(both.vaultKeys).toEqual([
      { id: 'k1', key: k1 },
      { id: 'k0', key: old },
    ]);
    const repeated = loadConfig({ VAULT_KEYS: `k1:${k1.toString('hex')},k0:${old.toString('hex')}`, VAULT_KEY: old.toString('base64') });
    expect(repeated.vaultKeys.map((k) => k.id)).toEqual(['k1', 'k0']);
  });
});
