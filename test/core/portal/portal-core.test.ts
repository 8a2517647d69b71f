import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { KvGatewayStore } from '../../../src/store/gateway-store.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import type { CoreDeps } from '../../../src/core/ports/deps.js';
import { hashPassword, verifyPassword } from '../../../src/core/portal/password.js';
import { LOGIN_LIMITS, LOGIN_WINDOW_MS, loginBlockedFor, recordLoginFailure } from '../../../src/core/portal/throttle.js';
import { PORTAL_HASH, buildDirectory, merchantsFileSchema } from '../../../src/core/merchants/directory.js';
import { testMerchants } from '../../support/gateway.js';

const cost = { ln: 14, r: 8, p: 1 };

function memoryDeps(clock = new ManualClock()): CoreDeps {
  return { store: new KvGatewayStore(new MemoryKv()), clock, log: pino({ level: 'silent' }) } as unknown as CoreDeps;
}

describe('when a portal password is hashed', () => {
  it('then it is the PHC string of DESIGN 11 and only the same password verifies', async () => {
    const phc = await hashPassword('a long passphrase', cost);
    expect(phc).toMatch(PORTAL_HASH);
    expect(phc).toMatch(/^\$scrypt\$ln=14,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await verifyPassword('a long passphrase', phc)).toBe(true);
    expect(await verifyPassword('a long passphrasE', phc)).toBe(false);
    expect(await verifyPassword('a long passphrase', undefined)).toBe(false);
    expect(await hashPassword('a long passphrase', cost)).not.toBe(phc);
  });

  it('then a known answer from the DESIGN parameters verifies (scrypt N=2^14, r=8, p=1, 32 bytes)', async () => {
    const { scryptSync } = await import('node:crypto');
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync('pw', salt, 32, { N: 2 ** 14, r: 8, p: 1 });
    const phc = `$scrypt$ln=14,r=8,p=1$${salt.toString('base64').replace(/=+$/, '')}$${key.toString('base64').replace(/=+$/, '')}`;
    expect(await verifyPassword('pw', phc)).toBe(true);
  });
});

describe('when the merchants file lists portal users', () => {
  const withUsers = (users: unknown[]) => {
    const file = testMerchants() as unknown as { merchants: Record<string, unknown>[] };
    file.merchants[0]!.portal_users = users;
    return file;
  };

  it('then a hash outside ln 14..20 or a role other than admin/viewer is refused with the field named', () => {
    const bad = merchantsFileSchema.safeParse(
      withUsers([{ email: 'a@b.example', password_hash: '$scrypt$ln=10,r=8,p=1$x$y', role: 'admin' }]),
    );
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path.join('.')).toBe('merchants.0.portal_users.0.password_hash');
    const role = merchantsFileSchema.safeParse(withUsers([{ email: 'a@b.example', password_hash: 'x', role: 'owner' }]));
    expect(role.success).toBe(false);
  });

  it('then e-mails are found case-insensitively, and one listed twice stops the start', async () => {
    const phc = await hashPassword('pw-pw-pw-pw-pw', cost);
    const dir = buildDirectory(merchantsFileSchema.parse(withUsers([{ email: 'Ops@Shop.example', password_hash: phc, role: 'viewer' }])));
    expect(dir.portalUser(' ops@shop.EXAMPLE')).toMatchObject({ merchant_id: '1000001', role: 'viewer' });
    const twice = withUsers([
      { email: 'a@b.example', password_hash: phc, role: 'viewer' },
      { email: 'A@b.example', password_hash: phc, role: 'admin' },
    ]);
    expect(() => buildDirectory(merchantsFileSchema.parse(twice))).toThrow(/listed twice/);
  });
});

describe('when sign-ins fail', () => {
  it('then twenty failures from one address block it for every e-mail until the window ends', async () => {
    const clock = new ManualClock();
    const deps = memoryDeps(clock);
    for (let i = 0; i < LOGIN_LIMITS.ip - 1; i++) await recordLoginFailure(deps, `guess${i}@x.example`, '198.51.100.9');
    expect(await loginBlockedFor(deps, 'new@x.example', '198.51.100.9')).toBe(0);
    await recordLoginFailure(deps, 'last@x.example', '198.51.100.9');
    expect(await loginBlockedFor(deps, 'new@x.example', '198.51.100.9')).toBe(LOGIN_WINDOW_MS / 1000);
    expect(await loginBlockedFor(deps, 'new@x.example', '198.51.100.10')).toBe(0);
    clock.advance(LOGIN_WINDOW_MS);
    expect(await loginBlockedFor(deps, 'new@x.example', '198.51.100.9')).toBe(0);
  });

  it('then concurrent failures all count (versioned writes, no lost update)', async () => {
    const deps = memoryDeps();
    await Promise.all(Array.from({ length: LOGIN_LIMITS.user }, () => recordLoginFailure(deps, 'a@b.example', '203.0.113.1')));
    expect((await deps.store.getLoginFailures('user', 'a@b.example'))?.count).toBe(LOGIN_LIMITS.user);
    expect(await loginBlockedFor(deps, 'a@b.example', '203.0.113.2')).toBeGreaterThan(0);
  });
});

describe('when the gateway starts without a merchants file', () => {
  it('then the demo merchant has a portal admin whose password, made at start, verifies', async () => {
    const { loadConfig } = await import('../../../src/config.js');
    const config = loadConfig({});
    expect(config.demoPortal?.email).toBe('demo@shop.example');
    const user = config.merchants.portalUser(config.demoPortal!.email);
    expect(user).toMatchObject({ merchant_id: '1000001', role: 'admin' });
    expect(await verifyPassword(config.demoPortal!.password, user!.password_hash)).toBe(true);
    expect(loadConfig({}).demoPortal!.password).not.toBe(config.demoPortal!.password);
  });
});
