import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword, verifyPassword } from '../../../src/core/portal/password.js';
import { PORTAL_HASH, buildDirectory, merchantsFileSchema } from '../../../src/core/records/directory.js';
import { testMerchants } from '../../support/gateway.js';

const cost = { ln: 14, r: 8, p: 1 };

describe('when a portal password is hashed', () => {
  it('then it is the PHC string of docs/portal.md and only the same password verifies', async () => {
    const phc = await hashPassword('a long passphrase', cost);
    expect(phc).toMatch(PORTAL_HASH);
    expect(phc).toMatch(/^\$scrypt\$ln=14,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await verifyPassword('a long passphrase', phc)).toBe(true);
    expect(await verifyPassword('a long passphrasE', phc)).toBe(false);
    expect(await verifyPassword('a long passphrase', undefined)).toBe(false);
    expect(await hashPassword('a long passphrase', cost)).not.toBe(phc);
  });

  it('then a known answer from the documented parameters (docs/portal.md) verifies (scrypt N=2^14, r=8, p=1, 32 bytes)', async () => {
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

describe('when the gateway starts without a merchants file', () => {
  it('then the demo merchant has a portal admin whose password, kept in its file, verifies and stays the same at the next start', async () => {
    const { loadConfig } = await import('../../../src/config.js');
    const dir = mkdtempSync(join(tmpdir(), 'gw-demo-password-'));
    const env = { DEMO_PORTAL_PASSWORD_FILE: join(dir, 'password') };
    const config = loadConfig(env);
    expect(config.demoPortal?.email).toBe('demo@shop.example');
    expect(config.demoPortal?.file).toBe(env.DEMO_PORTAL_PASSWORD_FILE);
    const user = config.merchants.portalUser(config.demoPortal!.email);
    expect(user).toMatchObject({ merchant_id: '1000001', role: 'admin' });
    expect(await verifyPassword(config.demoPortal!.password, user!.password_hash)).toBe(true);
    // readable by this user only, and the same password at the next start
    expect(statSync(env.DEMO_PORTAL_PASSWORD_FILE).mode & 0o777).toBe(0o600);
    expect(readFileSync(env.DEMO_PORTAL_PASSWORD_FILE, 'utf8').trim()).toBe(config.demoPortal!.password);
    expect(loadConfig(env).demoPortal!.password).toBe(config.demoPortal!.password);
    // another file, another password; one of the user's own choice is taken as written
    expect(loadConfig({ DEMO_PORTAL_PASSWORD_FILE: join(dir, 'other') }).demoPortal!.password).not.toBe(config.demoPortal!.password);
    writeFileSync(join(dir, 'mine'), 'my-own-demo-password\n', { mode: 0o644 });
    expect(loadConfig({ DEMO_PORTAL_PASSWORD_FILE: join(dir, 'mine') }).demoPortal!.password).toBe('my-own-demo-password');
    expect(statSync(join(dir, 'mine')).mode & 0o777).toBe(0o600);
    writeFileSync(join(dir, 'bad'), 'short');
    expect(() => loadConfig({ DEMO_PORTAL_PASSWORD_FILE: join(dir, 'bad') })).toThrowError(
      /^DEMO_PORTAL_PASSWORD_FILE: .*bad must hold one password of 12 to 128 visible characters, no spaces \(delete the file to have a new one made\)$/,
    );
    // a folder that cannot be written: a password for this run, said so
    const readOnly = loadConfig({ DEMO_PORTAL_PASSWORD_FILE: '/proc/gw-demo-password' });
    expect(readOnly.demoPortal?.file).toBeUndefined();
    expect(readOnly.demoPortal?.password).toMatch(/^[\w-]{16}$/);
  });
});
