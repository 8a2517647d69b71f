import { afterAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import request from 'supertest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { ACCOUNT_ID, MERCHANT_ID, authoriseBody, makeGateway, type TestGateway } from '../support/gateway.js';
import { checkoutBody } from '../support/checkout.js';
import { csrfOf, signedIn } from '../support/portal.js';
import { OPERATOR_KEYS, OPERATOR_SECRET } from './support.js';

/** Rotation, invitations and suspension in one process, driven by a ManualClock (docs/operators.md). */
const clock = new ManualClock(Date.parse('2026-11-28T10:00:00Z'));
const open: TestGateway[] = [];
afterAll(async () => {
  for (const g of open) await g.close();
});
function gateway(): TestGateway {
  const gw = makeGateway({ name: 'operators-lifecycle', clock, env: { OPERATOR_KEYS, LOG_LEVEL: 'warn' } });
  open.push(gw);
  return gw;
}
const auth = { authorization: `Bearer ${OPERATOR_SECRET}` };

/** The strict X-Signature header as docs/security.md writes it. */
function strictHeader(path: string, text: string, key: string): string {
  const t = Math.floor(clock.now() / 1000);
  return `t=${t},v1=${createHmac('sha256', key).update(`${t}.POST.${path}.${text}`).digest('hex')}`;
}

describe('when a strict-signing account rotates its key', () => {
  it('then the body signature and the X-Signature header pass with either key until previous_expires_at, and with the new key only after', async () => {
    const gw = gateway();
    const made = await request(gw.app)
      .post('/admin/v1/merchants')
      .set(auth)
      .send({ merchant_id: 'S1', name: 'Strict', accounts: [{ account_id: 'S1A', signature_mode: 'strict' }] });
    const old = made.body.accounts[0].sign_key as string;
    const rotated = await request(gw.app)
      .post('/admin/v1/merchants/S1/accounts/S1A/sign-keys')
      .set(auth)
      .send({ previous_expires_in_seconds: 600 });
    const fresh = rotated.body.sign_key as string;
    const pay = (key: string) => {
      const text = JSON.stringify(authoriseBody({ merchant_id: 'S1', account_id: 'S1A', items: undefined, item_total: undefined }, key));
      return request(gw.app)
        .post('/v1/authorise')
        .type('form')
        .set('X-Signature', strictHeader('/v1/authorise', text, key))
        .send(text);
    };
    expect((await pay(old)).status).toBe(200);
    expect((await pay(fresh)).status).toBe(200);
    clock.advance(600_000);
    expect((await pay(old)).status).toBe(401);
    expect((await pay(fresh)).status).toBe(200);
  });
});

describe('when a portal user is invited', () => {
  it('then the link sets the password once, the user signs in, and removal ends the session at its next request', async () => {
    const gw = gateway();
    const invited = await request(gw.app)
      .post(`/admin/v1/merchants/${MERCHANT_ID}/portal-users`)
      .set(auth)
      .send({ email: 'new@shop.example', role: 'viewer' });
    const link = new URL(invited.body.invite_url as string).pathname;
    const page = await request(gw.app).get(link);
    expect(page.status).toBe(200);
    expect(page.text).toContain('autocomplete="new-password"');
    expect((await request(gw.app).post(link).type('form').send({ new_password: 'short' })).status).toBe(400);
    const set = await request(gw.app).post(link).type('form').send({ new_password: 'a long enough passphrase' });
    expect(set.status).toBe(303);
    // spent: the same link is refused
    expect((await request(gw.app).get(link)).status).toBe(404);
    expect((await request(gw.app).post(link).type('form').send({ new_password: 'another long passphrase' })).status).toBe(404);
    const agent = await signedIn(gw.app, { email: 'new@shop.example', password: 'a long enough passphrase' });
    expect((await agent.get('/portal/payments')).status).toBe(200);
    expect((await request(gw.app).delete(`/admin/v1/merchants/${MERCHANT_ID}/portal-users/new@shop.example`).set(auth)).status).toBe(204);
    const after = await agent.get('/portal/payments');
    expect(after.status).toBe(303);
    expect(after.headers.location).toMatch(/^\/portal\/login/);
  });

  it('then a link past 24 hours is refused', async () => {
    const gw = gateway();
    const invited = await request(gw.app)
      .post(`/admin/v1/merchants/${MERCHANT_ID}/portal-users`)
      .set(auth)
      .send({ email: 'late@shop.example', role: 'admin' });
    const link = new URL(invited.body.invite_url as string).pathname;
    clock.advance(24 * 3_600_000);
    expect((await request(gw.app).get(link)).status).toBe(404);
  });
});

describe('when a merchant is suspended while a shopper has its card page open', () => {
  it('then the page and its submit show a clear page and charge nothing; the portal shows the status', async () => {
    const gw = gateway();
    const session = await request(gw.app).post('/v1/checkout').set('accept', 'application/json').send(checkoutBody());
    expect(session.status).toBe(200);
    const card = new URL(session.body.checkout_url as string).pathname;
    expect((await request(gw.app).get(card)).status).toBe(200);
    expect((await request(gw.app).patch(`/admin/v1/merchants/${MERCHANT_ID}`).set(auth).send({ status: 'suspended' })).status).toBe(200);
    const shown = await request(gw.app).get(card);
    expect(shown.status).toBe(403);
    const paid = await request(gw.app).post(`${card}/pay`).type('form').send({
      cardholder: 'Ada Lovelace',
      card: '4242424242424242',
      expiration_month: '12',
      expiration_year: '2034',
      security_code: '123',
    });
    expect(paid.status).toBe(403);
    expect(
      (
        await request(gw.app)
          .post('/v1/authorise')
          .send(authoriseBody({ account_id: ACCOUNT_ID }))
      ).status,
    ).toBe(403);
    // a portal user of the merchant reads the status on the page
    const invited = await request(gw.app)
      .post(`/admin/v1/merchants/${MERCHANT_ID}/portal-users`)
      .set(auth)
      .send({ email: 'see@shop.example', role: 'viewer' });
    const link = new URL(invited.body.invite_url as string).pathname;
    await request(gw.app).post(link).type('form').send({ new_password: 'a long enough passphrase' });
    const agent = await signedIn(gw.app, { email: 'see@shop.example', password: 'a long enough passphrase' });
    const payments = await agent.get('/portal/payments');
    expect(payments.text).toContain('This merchant is suspended');
    expect(csrfOf(payments.text)).toBeTruthy();
  });
});
