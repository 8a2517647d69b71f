import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ManualClock, randomIds } from '../../../src/core/kernel/clock.js';
import { KvGatewayStore } from '../../../src/store/gateway-store.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import type { CoreDeps } from '../../../src/core/ports/deps.js';
import { hashPassword, verifyPassword } from '../../../src/core/portal/password.js';
import { LOGIN_LIMITS, LOGIN_WINDOW_MS, admitLoginAttempt, settleSignIn } from '../../../src/core/portal/throttle.js';
import { PORTAL_HASH, buildDirectory, merchantsFileSchema } from '../../../src/core/merchants/directory.js';
import { testMerchants } from '../../support/gateway.js';
import { portalMerchants, PORTAL } from '../../support/portal.js';
import { signIn } from '../../../src/core/portal/users.js';

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
  it('then twenty counted attempts from one address block it for every e-mail until the window ends', async () => {
    const clock = new ManualClock();
    const deps = memoryDeps(clock);
    for (let i = 0; i < LOGIN_LIMITS.ip; i++) {
      expect(await admitLoginAttempt(deps, `guess${i}@x.example`, '198.51.100.9')).toMatchObject({ admitted: true });
    }
    expect(await admitLoginAttempt(deps, 'new@x.example', '198.51.100.9')).toEqual({ admitted: false, retryAfter: LOGIN_WINDOW_MS / 1000 });
    expect(await admitLoginAttempt(deps, 'new@x.example', '198.51.100.10')).toMatchObject({ admitted: true });
    clock.advance(LOGIN_WINDOW_MS);
    expect(await admitLoginAttempt(deps, 'new@x.example', '198.51.100.9')).toMatchObject({ admitted: true });
  });

  it('then a right password clears the e-mail’s count and takes back only its own attempt from the address', async () => {
    const deps = memoryDeps();
    for (let i = 0; i < 3; i++) await admitLoginAttempt(deps, 'a@b.example', '203.0.113.1');
    const right = await admitLoginAttempt(deps, 'a@b.example', '203.0.113.1');
    expect(await deps.store.getLoginFailures('ip', '203.0.113.1')).toMatchObject({ count: 4 });
    if (!right.admitted) throw new Error('not admitted');
    await settleSignIn(deps, right.attempt);
    expect(await deps.store.getLoginFailures('user', 'a@b.example')).toBeUndefined();
    expect(await deps.store.getLoginFailures('ip', '203.0.113.1')).toMatchObject({ count: 3 });
  });
});

describe('when guesses are checked at once', () => {
  it('then each is counted before its password is checked: of 60 concurrent wrong guesses 5 are checked, 55 throttled', async () => {
    const clock = new ManualClock();
    const deps = {
      ...memoryDeps(clock),
      ids: randomIds(clock),
      merchants: buildDirectory(merchantsFileSchema.parse(await portalMerchants())),
    } as CoreDeps;
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => signIn(deps, PORTAL.admin.email, `guess-${i}`, '203.0.113.5')));
    expect(answers.filter((a) => !a.ok && a.reason === 'wrong')).toHaveLength(LOGIN_LIMITS.user);
    expect(answers.filter((a) => !a.ok && a.reason === 'throttled')).toHaveLength(60 - LOGIN_LIMITS.user);
    expect(await signIn(deps, PORTAL.admin.email, PORTAL.admin.password, '203.0.113.6')).toMatchObject({ ok: false, reason: 'throttled' });
    clock.advance(LOGIN_WINDOW_MS);
    expect(await signIn(deps, PORTAL.admin.email, PORTAL.admin.password, '203.0.113.6')).toMatchObject({ ok: true });
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
