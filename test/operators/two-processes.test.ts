import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis, type RedisServer } from '../support/redis.js';
import { MERCHANT_ID, ACCOUNT_ID, SIGN_KEY, testMerchants } from '../support/gateway.js';
import { OPERATOR, admin, authorise, capture, checkout, startProcess, stopProcess, within, type Proc } from './support.js';

/**
 * The operators' API (docs/operators.md) on two real gateway processes sharing one real Redis: a change made
 * on one applies on the other within a second, with no restart.
 */
let redis: RedisServer;
let merchantsFile: string;
let a: Proc;
let b: Proc;
/** every secret an answer showed: the audit must name none */
const secrets: string[] = [];

beforeAll(async () => {
  redis = await startRedis('operators-two');
  const dir = join(tmpdir(), `gw-operators-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  merchantsFile = join(dir, 'merchants.json');
  writeFileSync(merchantsFile, JSON.stringify(testMerchants()));
  [a, b] = await Promise.all([
    startProcess('operators-a', redis.url, merchantsFile),
    startProcess('operators-b', redis.url, merchantsFile),
  ]);
}, 60_000);

afterAll(async () => {
  for (const p of [a, b]) if (p) await stopProcess(p);
  await redis?.stop();
});

const ACCOUNT = { account_id: '2000001001', currencies: ['USD', 'EUR'], capture_mode: 'manual', routing: { connector_code: 'sandbox' } };

describe('when an operator creates a merchant on one process', () => {
  it('then it authorises on the other within 1 s, its key shown once and never again', async () => {
    const created = await admin(a.base, 'POST', '/admin/v1/merchants', {
      merchant_id: '2000001',
      name: 'Second Shop',
      accounts: [ACCOUNT],
    });
    expect(created.status).toBe(201);
    const key = (created.body.accounts as { sign_key: string }[])[0]!.sign_key;
    expect(key.length).toBeGreaterThanOrEqual(32);
    secrets.push(key);
    const took = await within(1000, async () => (await authorise(b.base, '2000001', '2000001001', key)).status === 200);
    expect(took).toBeLessThanOrEqual(1000);
    const read = await admin(b.base, 'GET', '/admin/v1/merchants/2000001');
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain(key);
    expect((read.body.accounts as { sign_keys: unknown[] }[])[0]!.sign_keys).toEqual([
      { key_id: expect.stringMatching(/^sk/), created_at: expect.any(String), expires_at: null },
    ]);
    expect(
      (await admin(b.base, 'POST', '/admin/v1/merchants', { merchant_id: '2000001', name: 'Again', accounts: [ACCOUNT] })).status,
    ).toBe(409);
  });

  it('then an account added on the other process authorises on the first, and its changes apply on both', async () => {
    const added = await admin(b.base, 'POST', '/admin/v1/merchants/2000001/accounts', { account_id: '2000001002', currencies: ['USD'] });
    expect(added.status).toBe(201);
    const key = String(added.body.sign_key);
    secrets.push(key);
    await within(1000, async () => (await authorise(a.base, '2000001', '2000001002', key)).status === 200);
    const changed = await admin(a.base, 'PATCH', '/admin/v1/merchants/2000001/accounts/2000001002', { currencies: ['EUR'] });
    expect(changed.status).toBe(200);
    await within(1000, async () => (await authorise(b.base, '2000001', '2000001002', key)).code === 'INVALID_FIELD');
    expect((await authorise(b.base, '2000001', '2000001002', key, { currency: 'EUR' })).status).toBe(200);
  });
});

describe('when a sign key is rotated', () => {
  it('then both keys verify on both processes until the previous one expires, and only the new one after', async () => {
    const created = await admin(a.base, 'POST', '/admin/v1/merchants', {
      merchant_id: '2000002',
      name: 'Rotating',
      accounts: [{ ...ACCOUNT, account_id: '2000002001' }],
    });
    const old = (created.body.accounts as { sign_key: string }[])[0]!.sign_key;
    await within(1000, async () => (await authorise(b.base, '2000002', '2000002001', old)).status === 200);
    const rotated = await admin(b.base, 'POST', '/admin/v1/merchants/2000002/accounts/2000002001/sign-keys', {
      previous_expires_in_seconds: 3,
    });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toEqual({ key_id: expect.any(String), sign_key: expect.any(String), previous_expires_at: expect.any(String) });
    const fresh = String(rotated.body.sign_key);
    secrets.push(old, fresh);
    await within(1000, async () => (await authorise(a.base, '2000002', '2000002001', fresh)).status === 200);
    for (const p of [a, b]) {
      expect((await authorise(p.base, '2000002', '2000002001', old)).status).toBe(200);
      expect((await authorise(p.base, '2000002', '2000002001', fresh)).status).toBe(200);
    }
    // the overlap ends at previous_expires_at: the old key is then refused on both
    const expires = Date.parse(String(rotated.body.previous_expires_at));
    await new Promise((r) => setTimeout(r, Math.max(0, expires - Date.now() + 50)));
    for (const p of [a, b]) {
      expect((await authorise(p.base, '2000002', '2000002001', old)).status).toBe(401);
      expect((await authorise(p.base, '2000002', '2000002001', fresh)).status).toBe(200);
    }
    // 0: the previous key stops at once
    const again = await admin(a.base, 'POST', '/admin/v1/merchants/2000002/accounts/2000002001/sign-keys', {
      previous_expires_in_seconds: 0,
    });
    const newest = String(again.body.sign_key);
    secrets.push(newest);
    await within(1000, async () => (await authorise(b.base, '2000002', '2000002001', fresh)).status === 401);
    expect((await authorise(b.base, '2000002', '2000002001', newest)).status).toBe(200);
  });
});

describe('when a merchant is suspended', () => {
  it('then new payments and checkouts are 403 MERCHANT_SUSPENDED on both processes, and its existing payments can still be captured', async () => {
    const before = await authorise(a.base, MERCHANT_ID, ACCOUNT_ID, SIGN_KEY);
    expect(before.status).toBe(200);
    expect((await admin(b.base, 'PATCH', `/admin/v1/merchants/${MERCHANT_ID}`, { status: 'suspended' })).status).toBe(200);
    for (const p of [a, b]) {
      await within(1000, async () => (await authorise(p.base, MERCHANT_ID, ACCOUNT_ID, SIGN_KEY)).code === 'MERCHANT_SUSPENDED');
      expect(await authorise(p.base, MERCHANT_ID, ACCOUNT_ID, SIGN_KEY)).toEqual({ status: 403, code: 'MERCHANT_SUSPENDED' });
      expect(await checkout(p.base, MERCHANT_ID, ACCOUNT_ID, SIGN_KEY)).toEqual({ status: 403, code: 'MERCHANT_SUSPENDED' });
    }
    expect(await capture(b.base, MERCHANT_ID, ACCOUNT_ID, SIGN_KEY, before.order!)).toBe('1');
    expect((await admin(a.base, 'GET', `/admin/v1/merchants/${MERCHANT_ID}`)).body.status).toBe('suspended');
    expect((await admin(a.base, 'PATCH', `/admin/v1/merchants/${MERCHANT_ID}`, { status: 'active' })).status).toBe(200);
    await within(1000, async () => (await authorise(b.base, MERCHANT_ID, ACCOUNT_ID, SIGN_KEY)).status === 200);
  });
});

describe('when portal users are invited and removed', () => {
  it('then the invitation is a one-time link valid 24 h, listed as invited, and removal takes the user away', async () => {
    const invited = await admin(a.base, 'POST', '/admin/v1/merchants/2000001/portal-users', { email: 'Ops@Second.example', role: 'admin' });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({
      email: 'ops@second.example',
      role: 'admin',
      invite_url: expect.stringContaining('/portal/invite/2000001/'),
    });
    const lasts = Date.parse(String(invited.body.invite_expires_at)) - Date.now();
    expect(lasts).toBeGreaterThan(23.9 * 3_600_000);
    expect(lasts).toBeLessThanOrEqual(24 * 3_600_000);
    secrets.push(String(invited.body.invite_url).split('/').pop()!);
    const listed = await admin(b.base, 'GET', '/admin/v1/merchants/2000001');
    expect(listed.body.portal_users).toEqual([
      { email: 'ops@second.example', role: 'admin', state: 'invited', invite_expires_at: expect.any(String) },
    ]);
    expect(
      (await admin(b.base, 'POST', '/admin/v1/merchants/2000001/portal-users', { email: 'ops@second.example', role: 'viewer' })).status,
    ).toBe(409);
    expect((await admin(b.base, 'DELETE', '/admin/v1/merchants/2000001/portal-users/ops%40second.example')).status).toBe(204);
    expect((await admin(a.base, 'GET', '/admin/v1/merchants/2000001')).body.portal_users).toEqual([]);
  });
});

describe('when the operators read the audit', () => {
  it('then every change is listed with the operator key id and no secret', async () => {
    const all = await admin(b.base, 'GET', '/admin/v1/audit');
    expect(all.status).toBe(200);
    const entries = all.body.audit as { action: string; operator_key_id: string; merchant_id: string }[];
    const ours = entries.filter((e) => e.operator_key_id === OPERATOR).map((e) => `${e.merchant_id} ${e.action}`);
    expect(ours.reverse()).toEqual([
      '2000001 merchant_created',
      '2000001 account_created',
      '2000001 account_updated',
      '2000002 merchant_created',
      '2000002 sign_key_rotated',
      '2000002 sign_key_rotated',
      `${MERCHANT_ID} merchant_updated`,
      `${MERCHANT_ID} merchant_updated`,
      '2000001 portal_user_invited',
      '2000001 portal_user_removed',
    ]);
    expect(entries.some((e) => e.operator_key_id === 'merchants-file' && e.action === 'merchant_seeded')).toBe(true);
    const text = JSON.stringify(all.body);
    for (const s of secrets) expect(text).not.toContain(s);
    const one = await admin(a.base, 'GET', '/admin/v1/audit?merchant_id=2000002');
    expect((one.body.audit as { merchant_id: string }[]).every((e) => e.merchant_id === '2000002')).toBe(true);
    expect((one.body.audit as unknown[]).length).toBe(3);
  });
});

describe('when a process restarts', () => {
  it("then the merchants created over the API are still there, and the start says in one line that the file's copy differs", async () => {
    // the demo merchant of the file was suspended and reactivated: its status is the store's; nothing the file says differs yet
    writeFileSync(
      merchantsFile,
      JSON.stringify({ ...testMerchants(), merchants: testMerchants().merchants.map((m) => ({ ...m, name: 'Renamed In File' })) }),
    );
    await stopProcess(b);
    b = await startProcess('operators-b2', redis.url, merchantsFile);
    const read = await admin(b.base, 'GET', '/admin/v1/merchants/2000001');
    expect(read.status).toBe(200);
    const key = secrets[1]!;
    expect((await authorise(b.base, '2000001', '2000001002', key, { currency: 'EUR' })).status).toBe(200);
    expect((await admin(b.base, 'GET', `/admin/v1/merchants/${MERCHANT_ID}`)).body.name).not.toBe('Renamed In File');
    const lines = b
      .output()
      .split('\n')
      .filter((l) => l.includes('MERCHANTS_FILE differs from the store'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(MERCHANT_ID);
  }, 60_000);
});

describe('when a call is not an operator key', () => {
  it('then a wrong key and a missing key answer alike (401), and bad input is a 400 naming the field', async () => {
    const wrong = await admin(a.base, 'GET', '/admin/v1/merchants/2000001', undefined, 'x'.repeat(40));
    const missing = await admin(a.base, 'GET', '/admin/v1/merchants/2000001', undefined, null);
    expect(wrong.status).toBe(401);
    expect({ ...wrong.body, request_id: '' }).toEqual({ ...missing.body, request_id: '' });
    const bad = await admin(a.base, 'POST', '/admin/v1/merchants', {
      merchant_id: '2000003',
      name: 'Bad',
      accounts: [{ account_id: '2000003001', capture_mode: 'sometimes' }],
    });
    expect(bad).toMatchObject({ status: 400, body: { code: 'INVALID_FIELD', field: 'accounts.0.capture_mode' } });
    expect((await admin(a.base, 'GET', '/admin/v1/merchants/2000003')).status).toBe(404);
  });
});
