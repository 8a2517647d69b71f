import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../../src/core/kernel/clock.js';
import { redisWorld } from '../../../support/redis-world.js';
import { MERCHANT_ID } from '../../../support/gateway.js';
import { pay, postBatch, ref } from '../../../support/operations.js';
import { csrfOf, portalMerchants, PORTAL, postForm, signedIn } from '../../../support/portal.js';

const world = redisWorld('portal-auth');

async function gateway(env: Record<string, string> = {}) {
  const clock = new ManualClock();
  const gw = world.gateway('portal-auth', clock, { merchants: await portalMerchants(), env });
  return { gw, clock };
}

function sessionCookie(res: request.Response): string {
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return cookies.find((c) => c.startsWith('portal_session=') && !c.startsWith('portal_session=;')) ?? '';
}

describe('when a portal user signs in', () => {
  it('then the right password opens a session whose cookie is HttpOnly, SameSite=Lax and scoped to /portal', async () => {
    const { gw } = await gateway();
    const agent = request.agent(gw.app);
    const form = await agent.get('/portal/login');
    expect(form.status).toBe(200);
    expect(form.text).toContain('autocomplete="username"');
    expect(form.text).toContain('autocomplete="current-password"');
    expect(form.headers['content-security-policy']).toContain("script-src 'self'");
    expect(form.headers['content-security-policy']).not.toContain('unsafe-inline');
    const res = await agent
      .post('/portal/login')
      .type('form')
      .send({ _csrf: csrfOf(form.text), ...PORTAL.admin });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/portal');
    const cookie = sessionCookie(res);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/portal/);
    expect(cookie).not.toMatch(/Secure/);
    const list = await agent.get('/portal/payments');
    expect(list.status).toBe(200);
    expect(list.text).toContain(PORTAL.admin.email);
  });

  it('then behind https (BASE_URL https) the cookie is also Secure', async () => {
    const { gw } = await gateway({ BASE_URL: 'https://gateway.test' });
    const agent = request.agent(gw.app);
    const form = await agent.get('/portal/login');
    const loginCookie = ([] as string[]).concat(form.headers['set-cookie'] ?? []).find((c) => c.startsWith('portal_login='));
    expect(loginCookie).toMatch(/; Secure/);
    // a client on plain http does not send a Secure cookie back: the sign-in is refused, not half-done
    const res = await agent
      .post('/portal/login')
      .type('form')
      .send({ _csrf: csrfOf(form.text), ...PORTAL.admin });
    expect(res.status).toBe(403);
    const tls = await request(gw.app)
      .post('/portal/login')
      .set('Cookie', `portal_login=${encodeURIComponent(csrfOf(form.text))}`)
      .type('form')
      .send({ _csrf: csrfOf(form.text), ...PORTAL.admin });
    expect(tls.status).toBe(303);
    expect(sessionCookie(tls)).toMatch(/; Secure/);
  });

  it('then a wrong password, an unknown e-mail and a missing form token open no session', async () => {
    const { gw } = await gateway();
    const agent = request.agent(gw.app);
    const form = await agent.get('/portal/login');
    const wrong = await agent
      .post('/portal/login')
      .type('form')
      .send({ _csrf: csrfOf(form.text), email: PORTAL.admin.email, password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The e-mail or password is not correct.');
    expect(sessionCookie(wrong)).toBe('');
    const unknown = await agent
      .post('/portal/login')
      .type('form')
      .send({ _csrf: csrfOf(wrong.text), email: 'who@x.example', password: 'x' });
    expect(unknown.status).toBe(401);
    const noToken = await agent.post('/portal/login').type('form').send(PORTAL.admin);
    expect(noToken.status).toBe(403);
    expect(sessionCookie(noToken)).toBe('');
    expect((await agent.get('/portal/payments')).status).toBe(303);
  });

  it('then five wrong passwords from one address make that address wait (429, Retry-After), while the right one signs in from another', async () => {
    const { gw, clock } = await gateway({ TRUST_PROXY: '1' });
    const agent = request.agent(gw.app);
    let page = (await agent.get('/portal/login')).text;
    const post = (fields: Record<string, string>, ip: string) =>
      agent
        .post('/portal/login')
        .set('X-Forwarded-For', ip)
        .type('form')
        .send({ _csrf: csrfOf(page), ...fields });
    for (let i = 0; i < 5; i++) {
      const res = await post({ email: PORTAL.admin.email, password: `bad-${i}` }, '198.51.100.20');
      expect(res.status).toBe(401);
      page = res.text;
    }
    const waiting = await post(PORTAL.admin, '198.51.100.20');
    expect(waiting.status).toBe(429);
    expect(waiting.headers['retry-after']).toBe('30');
    expect(waiting.text).toContain('Too many wrong passwords');
    expect(sessionCookie(waiting)).toBe('');
    // the user elsewhere is not held by those guesses, nor is another user of the guessing address
    await signedIn(gw.app, PORTAL.admin, '203.0.113.20');
    await signedIn(gw.app, PORTAL.viewer, '198.51.100.20');
    clock.advance(30_000);
    await signedIn(gw.app, PORTAL.admin, '198.51.100.20');
  });
});

describe('when guesses are sent at once', () => {
  /** A sign-in form post with the login page's token in field and cookie, from `ip` (no agent: its cookies change under concurrency). */
  async function guesser(gw: { app: Parameters<typeof request>[0] }) {
    const form = await request(gw.app).get('/portal/login');
    const token = csrfOf(form.text);
    return (email: string, password: string, ip = '198.51.100.7') =>
      request(gw.app)
        .post('/portal/login')
        .set('Cookie', `portal_login=${encodeURIComponent(token)}`)
        .set('X-Forwarded-For', ip)
        .type('form')
        .send({ _csrf: token, email, password });
  }

  it('then of 60 concurrent wrong passwords from one address exactly 5 are checked (401), the rest are 429; the right one is 429 there and signs in from another address', async () => {
    const { gw } = await gateway({ TRUST_PROXY: '1' });
    const guess = await guesser(gw);
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => guess(PORTAL.admin.email, `guess-${i}`)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(55);
    const right = await guess(PORTAL.admin.email, PORTAL.admin.password);
    expect(right.status).toBe(429);
    expect(sessionCookie(right)).toBe('');
    expect((await guess(PORTAL.admin.email, PORTAL.admin.password, '203.0.113.21')).status).toBe(303);
  });

  it('then of 60 concurrent guesses at 60 e-mails from one address exactly 20 are checked, and that address is blocked for everyone', async () => {
    const { gw } = await gateway({ TRUST_PROXY: '1' });
    const guess = await guesser(gw);
    const emails = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? PORTAL.viewer.email : `nobody-${i}@shop.example`));
    const answers = await Promise.all(emails.map((email, i) => guess(email, `guess-${i}`, '198.51.100.8')));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    expect((await guess(PORTAL.admin.email, PORTAL.admin.password, '198.51.100.8')).status).toBe(429);
    expect((await guess(PORTAL.admin.email, PORTAL.admin.password, '198.51.100.9')).status).toBe(303);
  });

  it('then successful sign-ins use up nothing: 25 from one address in a row, then 12 at once, all open a session', async () => {
    const { gw } = await gateway({ TRUST_PROXY: '1' });
    const guess = await guesser(gw);
    for (let i = 0; i < 25; i++) expect((await guess(PORTAL.viewer.email, PORTAL.viewer.password, '198.51.100.10')).status).toBe(303);
    const users = [PORTAL.admin, PORTAL.viewer, PORTAL.other];
    const atOnce = await Promise.all(
      Array.from({ length: 12 }, (_, i) => guess(users[i % 3]!.email, users[i % 3]!.password, '198.51.100.10')),
    );
    expect(atOnce.map((a) => a.status)).toEqual(Array(12).fill(303));
  });
});

describe('when a session is used', () => {
  it('then after 30 idle minutes it has ended, while activity keeps it alive', async () => {
    const { gw, clock } = await gateway();
    const agent = await signedIn(gw.app, PORTAL.admin);
    clock.advance(29 * 60_000);
    expect((await agent.get('/portal/payments')).status).toBe(200);
    clock.advance(29 * 60_000);
    expect((await agent.get('/portal/payments')).status).toBe(200);
    clock.advance(30 * 60_000);
    const ended = await agent.get('/portal/payments');
    expect(ended.status).toBe(303);
    expect(ended.headers.location).toBe('/portal/login?expired=1');
  });

  it('then signing out ends it', async () => {
    const { gw } = await gateway();
    const agent = await signedIn(gw.app, PORTAL.admin);
    expect((await postForm(agent, '/portal/payments', '/portal/logout', {})).status).toBe(303);
    expect((await agent.get('/portal/payments')).status).toBe(303);
  });

  it('then a POST without the CSRF token, or with another session’s, is refused (403) and changes nothing', async () => {
    const { gw } = await gateway();
    const p = await pay(gw.app);
    const admin = await signedIn(gw.app, PORTAL.admin);
    const other = await signedIn(gw.app, PORTAL.admin);
    const foreignToken = csrfOf((await other.get('/portal/payments')).text);
    const none = await admin.post(`/portal/payments/${p.transaction_id}/capture`).type('form').send({ amount: '5.00' });
    expect(none.status).toBe(403);
    expect(none.text).toContain('security token');
    const foreign = await admin
      .post(`/portal/payments/${p.transaction_id}/capture`)
      .type('form')
      .send({ amount: '5.00', _csrf: foreignToken });
    expect(foreign.status).toBe(403);
    expect(await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id)).toMatchObject({ status: '3000', captured: 0 });
  });

  it('then a viewer sees no action form, and a forged POST with a valid token is refused (403)', async () => {
    const { gw } = await gateway();
    const p = await pay(gw.app, { notify_url: 'http://127.0.0.1:9/notify' });
    const captured = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(captured)]);
    const viewer = await signedIn(gw.app, PORTAL.viewer);
    for (const id of [p.transaction_id, captured.transaction_id]) {
      const page = await viewer.get(`/portal/payments/${id}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Your role lets you look, not act.');
      expect(page.text).not.toMatch(/action="\/portal\/payments\/[^"]+\/(capture|cancel|refund|resend)"/);
    }
    for (const [action, fields] of [
      ['capture', { amount: '1.00' }],
      ['cancel', {}],
      ['resend', { notify_id: 'x' }],
    ] as const) {
      const res = await postForm(viewer, '/portal/payments', `/portal/payments/${p.transaction_id}/${action}`, fields);
      expect(res.status).toBe(403);
    }
    const refund = await postForm(viewer, '/portal/payments', `/portal/payments/${captured.transaction_id}/refund`, {
      refund_amount: '1.00',
    });
    expect(refund.status).toBe(403);
    expect(await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id)).toMatchObject({ status: '3000' });
    expect(await gw.deps.store.getPayment(MERCHANT_ID, captured.transaction_id)).toMatchObject({ status: '3100', refunded: 0 });
  });

  it("then another merchant's payment is not found, to look at or to act on", async () => {
    const { gw } = await gateway();
    const p = await pay(gw.app);
    const other = await signedIn(gw.app, PORTAL.other);
    expect((await other.get(`/portal/payments/${p.transaction_id}`)).status).toBe(404);
    const res = await postForm(other, '/portal/payments', `/portal/payments/${p.transaction_id}/cancel`, {});
    expect(res.status).toBe(404);
    const list = await other.get(`/portal/payments?transaction_id=${p.transaction_id}`);
    expect(list.text).not.toContain(p.transaction_id + '</a>');
    expect((await other.get(`/portal/payments?account=1000001001`)).status).toBe(400);
    expect(await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id)).toMatchObject({ status: '3000' });
  });
});

describe('when a user changes their own password', () => {
  it('then the current one is checked, a short one refused, and afterwards only the new one signs in', async () => {
    const { gw } = await gateway();
    const agent = await signedIn(gw.app, PORTAL.viewer);
    const page = '/portal/account/password';
    const wrong = await postForm(agent, page, page, { current_password: 'not it', new_password: 'a brand new passphrase' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('Current password: is not your current password');
    const short = await postForm(agent, page, page, { current_password: PORTAL.viewer.password, new_password: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('New password (at least 12 characters): must be at least 12 characters');
    const ok = await postForm(agent, page, page, { current_password: PORTAL.viewer.password, new_password: 'a brand new passphrase' });
    expect(ok.status).toBe(303);
    expect((await agent.get(ok.headers.location!)).text).toContain('Your password has been changed.');
    await expect(signedIn(gw.app, PORTAL.viewer)).rejects.toThrow(/answered 401/);
    await signedIn(gw.app, { email: PORTAL.viewer.email, password: 'a brand new passphrase' });
    const audit = await gw.deps.store.auditOf(MERCHANT_ID, undefined, 10);
    expect(audit).toMatchObject([{ action: 'password_change', email: PORTAL.viewer.email }]);
    expect(JSON.stringify(audit)).not.toContain('brand new');
  });
});

describe('when a user changes their password while signed in elsewhere', () => {
  it('then their other sessions end at once (pages go to sign-in, forms are refused) and this one goes on', async () => {
    const { gw } = await gateway();
    const elsewhere = await signedIn(gw.app, PORTAL.viewer);
    const stillOpen = (await elsewhere.get('/portal/account/password')).text;
    const bystander = await signedIn(gw.app, PORTAL.admin);
    const here = await signedIn(gw.app, PORTAL.viewer);
    const page = '/portal/account/password';
    const ok = await postForm(here, page, page, { current_password: PORTAL.viewer.password, new_password: 'a brand new passphrase' });
    expect(ok.status).toBe(303);
    // a form the other browser still shows is refused, and its next page is the sign-in
    const forged = await elsewhere
      .post(page)
      .type('form')
      .send({ _csrf: csrfOf(stillOpen), current_password: 'a brand new passphrase', new_password: 'taken over passphrase' });
    expect(forged.status).toBe(403);
    const ended = await elsewhere.get('/portal/payments');
    expect(ended.status).toBe(303);
    expect(ended.headers.location).toMatch(/^\/portal\/login/);
    expect((await here.get('/portal/payments')).status).toBe(200);
    expect((await bystander.get('/portal/payments')).status).toBe(200);
    await signedIn(gw.app, { email: PORTAL.viewer.email, password: 'a brand new passphrase' });
  });
});

describe('when the hash command is given a password on standard input', () => {
  it('then it prints a PHC hash that the portal accepts for that password', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/tools/hash-password.ts', '--ln', '14'], {
      input: 'stdin passphrase\n',
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    const phc = run.stdout.trim();
    expect(phc).toMatch(/^\$scrypt\$ln=14,r=8,p=1\$/);
    const { verifyPassword } = await import('../../../../src/core/portal/password.js');
    expect(await verifyPassword('stdin passphrase', phc)).toBe(true);
    const empty = spawnSync(process.execPath, ['--import', 'tsx', 'src/tools/hash-password.ts'], { input: '', encoding: 'utf8' });
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('no password given');
  });
});
