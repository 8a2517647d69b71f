import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ManualClock, randomIds } from '../../../src/core/kernel/clock.js';
import { KvGatewayStore } from '../../../src/store/gateway-store.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import type { CoreDeps } from '../../../src/core/ports/deps.js';
import { LOGIN_RULES, admitLoginAttempt, pairDelayMs, settleSignIn } from '../../../src/core/portal/throttle.js';
import { buildDirectory, merchantsFileSchema } from '../../../src/core/records/directory.js';
import { portalMerchants, PORTAL } from '../../support/portal.js';
import { signIn } from '../../../src/core/portal/users.js';

/**
 * Issue 55 finding 3: five wrong passwords for an e-mail, from anywhere, locked its user out for 15 minutes,
 * from their own address too. Failures now slow down the (e-mail, address) pair they come from, each address,
 * and past a daily cap the e-mail, while an address the user signs in from goes on.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function memoryDeps(clock = new ManualClock()): CoreDeps {
  return { store: new KvGatewayStore(new MemoryKv()), clock, log: pino({ level: 'silent' }) } as unknown as CoreDeps;
}

async function portalDeps(clock = new ManualClock()): Promise<CoreDeps> {
  return {
    ...memoryDeps(clock),
    ids: randomIds(clock),
    merchants: buildDirectory(merchantsFileSchema.parse(await portalMerchants())),
  } as CoreDeps;
}

const ATTACKER = '198.51.100.66';
const HOME = '203.0.113.10';

describe('when one address guesses a user’s password', () => {
  it('then the right password signs in from another address after 30 wrong ones, and from the guessing address only after its delay', async () => {
    const clock = new ManualClock();
    const deps = await portalDeps(clock);
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push(await signIn(deps, PORTAL.admin.email, `guess-${i}`, ATTACKER));
    expect(answers.filter((a) => !a.ok && a.reason === 'wrong')).toHaveLength(LOGIN_RULES.pairFree);
    expect(answers.slice(LOGIN_RULES.pairFree).every((a) => !a.ok && a.reason === 'throttled')).toBe(true);
    expect(await signIn(deps, PORTAL.admin.email, PORTAL.admin.password, HOME)).toMatchObject({ ok: true });
    expect(await signIn(deps, PORTAL.admin.email, PORTAL.admin.password, ATTACKER)).toEqual({
      ok: false,
      reason: 'throttled',
      retryAfter: LOGIN_RULES.pairFirstDelayMs / 1000,
    });
    clock.advance(LOGIN_RULES.pairFirstDelayMs);
    expect(await signIn(deps, PORTAL.admin.email, PORTAL.admin.password, ATTACKER)).toMatchObject({ ok: true });
  });

  it('then its delays double from 30 s to at most an hour, so a day of guessing from it checks 34 passwords', async () => {
    expect([5, 6, 7, 8, 11, 12, 40].map(pairDelayMs)).toEqual([30_000, 60_000, 120_000, 240_000, 1_920_000, HOUR, HOUR]);
    const clock = new ManualClock();
    const deps = memoryDeps(clock);
    let checked = 0;
    for (const start = clock.now(); clock.now() - start < DAY;) {
      const a = await admitLoginAttempt(deps, 'victim@shop.example', ATTACKER);
      if (a.admitted) checked++;
      // the attacker retries as soon as told, from the same address (the address's own limit is not reached)
      clock.advance(a.admitted ? 1_000 : a.retryAfter * 1000);
    }
    // 5 at once, then 30 s + 1 + 2 + 4 + 8 + 16 + 32 min (7 more within 64 min), then one an hour
    expect(checked).toBe(5 + 7 + 22);
  });

  it('then guesses sent at once are counted before they are checked: of 60, 5 are checked and 55 wait', async () => {
    const clock = new ManualClock();
    const deps = await portalDeps(clock);
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => signIn(deps, PORTAL.admin.email, `guess-${i}`, ATTACKER)));
    expect(answers.filter((a) => !a.ok && a.reason === 'wrong')).toHaveLength(LOGIN_RULES.pairFree);
    expect(answers.filter((a) => !a.ok && a.reason === 'throttled')).toHaveLength(60 - LOGIN_RULES.pairFree);
    expect(await signIn(deps, PORTAL.admin.email, PORTAL.admin.password, HOME)).toMatchObject({ ok: true });
  });
});

describe('when many addresses guess one user’s password', () => {
  /** Fails `n` attempts for the e-mail from fresh addresses, 4 each (under the pair's free checks). */
  async function spray(deps: CoreDeps, email: string, n: number, tag: string): Promise<void> {
    for (let i = 0; i < n; i++)
      expect(await admitLoginAttempt(deps, email, `10.${tag}.${Math.floor(i / 4)}.1`)).toMatchObject({ admitted: true });
  }

  it('then past the daily cap the user’s own address goes on, a fresh address only one a minute, a guessing one not until the day ends', async () => {
    const clock = new ManualClock();
    const deps = memoryDeps(clock);
    const email = 'victim@shop.example';
    const home = await admitLoginAttempt(deps, email, HOME);
    if (!home.admitted) throw new Error('not admitted');
    await settleSignIn(deps, home.attempt);
    await spray(deps, email, LOGIN_RULES.emailDailyCap, '1');
    expect(await deps.store.getLoginFailures('user', email)).toMatchObject({ count: LOGIN_RULES.emailDailyCap });
    clock.advance(LOGIN_RULES.overCapGapMs);

    // an address with failures of its own: refused until the e-mail's day ends
    const guessing = await admitLoginAttempt(deps, email, '10.1.0.1');
    expect(guessing.admitted).toBe(false);
    expect(guessing.admitted === false && guessing.retryAfter).toBeGreaterThan(23 * 3600);
    // a fresh address: one a minute for the whole e-mail
    expect(await admitLoginAttempt(deps, email, '192.0.2.1')).toMatchObject({ admitted: true });
    expect(await admitLoginAttempt(deps, email, '192.0.2.2')).toEqual({ admitted: false, retryAfter: 60 });
    // the user's own address is not held by that lane: it waits only a minute after its own last try
    const back = await admitLoginAttempt(deps, email, HOME);
    expect(back).toMatchObject({ admitted: true });
    if (back.admitted) await settleSignIn(deps, back.attempt);
    expect(await admitLoginAttempt(deps, email, HOME)).toEqual({ admitted: false, retryAfter: 60 });
    clock.advance(LOGIN_RULES.overCapGapMs);
    expect(await admitLoginAttempt(deps, email, HOME)).toMatchObject({ admitted: true });
    expect(await admitLoginAttempt(deps, email, '192.0.2.2')).toMatchObject({ admitted: true });
    // the day over, the e-mail's count starts again
    clock.advance(DAY);
    expect(await admitLoginAttempt(deps, email, '10.1.0.1')).toMatchObject({ admitted: true });
  });

  it('then a right password takes back only its own attempt from the e-mail’s day and the address, and forgives its pair', async () => {
    const deps = memoryDeps();
    const email = 'a@b.example';
    for (let i = 0; i < 3; i++) await admitLoginAttempt(deps, email, '203.0.113.1');
    await spray(deps, email, 8, '2');
    const right = await admitLoginAttempt(deps, email, '203.0.113.1');
    if (!right.admitted) throw new Error('not admitted');
    await settleSignIn(deps, right.attempt);
    expect(await deps.store.getLoginFailures('user', email)).toMatchObject({ count: 11 });
    expect(await deps.store.getLoginFailures('ip', '203.0.113.1')).toMatchObject({ count: 3 });
    expect(await deps.store.getLoginFailures('pair', `${email}\n203.0.113.1`)).toMatchObject({
      count: 0,
      signed_in_at: expect.any(Number),
    });
  });

  it('then twenty counted attempts from one address make it wait for every e-mail until its window ends', async () => {
    const clock = new ManualClock();
    const deps = memoryDeps(clock);
    for (let i = 0; i < LOGIN_RULES.addressLimit; i++) {
      expect(await admitLoginAttempt(deps, `guess${i}@x.example`, '198.51.100.9')).toMatchObject({ admitted: true });
    }
    expect(await admitLoginAttempt(deps, 'new@x.example', '198.51.100.9')).toEqual({
      admitted: false,
      retryAfter: LOGIN_RULES.addressWindowMs / 1000,
    });
    expect(await admitLoginAttempt(deps, 'new@x.example', '198.51.100.10')).toMatchObject({ admitted: true });
    clock.advance(LOGIN_RULES.addressWindowMs);
    expect(await admitLoginAttempt(deps, 'new@x.example', '198.51.100.9')).toMatchObject({ admitted: true });
  });
});

describe('when a process whose clock is behind reads a pair another process signed in from', () => {
  it('then a pair with no failures that wait is admitted at once, whatever the other clock said', async () => {
    const ahead = new ManualClock(Date.UTC(2026, 10, 28, 9, 0, 0));
    const deps = await portalDeps(ahead);
    expect(await signIn(deps, PORTAL.admin.email, PORTAL.admin.password, HOME)).toMatchObject({ ok: true });
    expect(await signIn(deps, PORTAL.admin.email, 'one wrong guess', HOME)).toMatchObject({ ok: false, reason: 'wrong' });
    // the same store read by a process (or a test clock) four days behind
    const behind = { ...deps, clock: new ManualClock(Date.UTC(2026, 10, 24, 9, 0, 0)) } as CoreDeps;
    expect(await signIn(behind, PORTAL.admin.email, PORTAL.admin.password, HOME)).toMatchObject({ ok: true });
  });
});
