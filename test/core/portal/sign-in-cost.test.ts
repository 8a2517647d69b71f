import { describe, expect, it, vi } from 'vitest';
import type { ScryptOptions } from 'node:crypto';

// every scrypt the portal runs is recorded with its cost (N, r, p), so a test compares costs, not timings
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return { ...real, default: real, scrypt: vi.fn(real.scrypt) };
});

import { scrypt } from 'node:crypto';
import { pino } from 'pino';
import { ManualClock, randomIds } from '../../../src/core/kernel/clock.js';
import { KvGatewayStore } from '../../../src/store/gateway-store.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import type { CoreDeps } from '../../../src/core/ports/deps.js';
import { buildDirectory, merchantsFileSchema, type MerchantsFile } from '../../../src/core/records/directory.js';
import { hashPassword } from '../../../src/core/portal/password.js';
import { changePassword, signIn } from '../../../src/core/portal/users.js';
import { portalMerchants, PORTAL } from '../../support/portal.js';

function depsOf(file: MerchantsFile): CoreDeps {
  const clock = new ManualClock();
  return {
    store: new KvGatewayStore(new MemoryKv()),
    clock,
    ids: randomIds(clock),
    merchants: buildDirectory(merchantsFileSchema.parse(file)),
    log: pino({ level: 'silent' }),
  } as unknown as CoreDeps;
}

/** The costs of the scrypt runs since the last call. */
function costsRun(): string[] {
  const calls = vi.mocked(scrypt).mock.calls;
  const out = calls.map((c) => {
    const o = c[3] as ScryptOptions;
    return `N=${o.N},r=${o.r},p=${o.p}`;
  });
  vi.mocked(scrypt).mockClear();
  return out;
}

describe('when a sign-in names an e-mail nobody has', () => {
  it('then its decoy hash costs what the users’ hashes cost (N, r and p), at the merchants file’s cost', async () => {
    const deps = depsOf(await portalMerchants()); // users hashed at ln=14, r=8, p=1
    costsRun();
    expect(await signIn(deps, 'nobody@shop.example', 'a guess', '203.0.113.1')).toMatchObject({ ok: false, reason: 'wrong' });
    expect(await signIn(deps, PORTAL.admin.email, 'a guess', '203.0.113.1')).toMatchObject({ ok: false, reason: 'wrong' });
    expect(costsRun()).toEqual(['N=16384,r=8,p=1', 'N=16384,r=8,p=1']);
  });

  it('then with users at another cost the decoy follows them', async () => {
    const file = await portalMerchants();
    const cost = { ln: 15, r: 4, p: 1 };
    for (const m of file.merchants) {
      for (const u of m.portal_users ?? [])
        u.password_hash = await hashPassword(u.email === PORTAL.admin.email ? PORTAL.admin.password : 'x', cost);
    }
    const deps = depsOf(file);
    costsRun();
    await signIn(deps, 'nobody@shop.example', 'a guess', '203.0.113.2');
    await signIn(deps, PORTAL.admin.email, 'a guess', '203.0.113.2');
    expect(costsRun()).toEqual(['N=32768,r=4,p=1', 'N=32768,r=4,p=1']);
  });
});

describe('when a user sets a new password in the portal', () => {
  it('then it is hashed at the cost of the merchants file’s hash, so it stays at the decoy’s cost', async () => {
    const deps = depsOf(await portalMerchants());
    const opened = await signIn(deps, PORTAL.viewer.email, PORTAL.viewer.password, '203.0.113.3');
    if (!opened.ok) throw new Error('sign-in failed');
    await changePassword(deps, opened.session, PORTAL.viewer.password, 'a brand new passphrase', '203.0.113.3');
    const stored = await deps.store.getPortalPassword('1000001', PORTAL.viewer.email);
    expect(stored?.password_hash).toMatch(/^\$scrypt\$ln=14,r=8,p=1\$/);
    costsRun();
    await signIn(deps, 'nobody@shop.example', 'a guess', '203.0.113.3');
    await signIn(deps, PORTAL.viewer.email, 'a guess', '203.0.113.3');
    const [decoy, real] = costsRun();
    expect(decoy).toBe(real);
  });
});
