import { afterAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, authoriseBody, makeGateway, type TestGateway } from '../support/gateway.js';
import { OPERATOR_KEYS, OPERATOR_SECRET } from './support.js';

/**
 * The operators' API in one process on the embedded store: every call's answers are held to the OpenAPI
 * document by the suite's answer check (test/support/contract), and /admin is absent without OPERATOR_KEYS.
 */
const clock = new ManualClock(Date.parse('2026-11-28T10:00:00Z'));
const open: TestGateway[] = [];
const gateway = (env: Record<string, string>) => {
  const gw = makeGateway({ name: 'operators-admin', clock, env: { LOG_LEVEL: 'warn', ...env } });
  open.push(gw);
  return gw;
};
afterAll(async () => {
  for (const g of open) await g.close();
});

const auth = { authorization: `Bearer ${OPERATOR_SECRET}` };

describe('when OPERATOR_KEYS is unset', () => {
  it('then /admin is not served: 404 with or without a key', async () => {
    const gw = gateway({});
    for (const headers of [{}, auth]) {
      const res = await request(gw.app).get('/admin/v1/audit').set(headers);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    expect((await request(gw.app).post('/admin/v1/merchants').set(auth).send({})).status).toBe(404);
  });
});

describe('when OPERATOR_KEYS is set', () => {
  it('then a wrong key, a missing key and a key of another scheme answer alike: 401 with the same body', async () => {
    const gw = gateway({ OPERATOR_KEYS });
    const bodies = [];
    for (const headers of [{}, { authorization: `Bearer ${'y'.repeat(40)}` }, { authorization: `Basic ${OPERATOR_SECRET}` }]) {
      const res = await request(gw.app).get(`/admin/v1/merchants/${MERCHANT_ID}`).set(headers);
      expect(res.status).toBe(401);
      bodies.push({ ...res.body, request_id: '' });
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
  });

  it('then every call answers as the document says, and the file seeded the store', async () => {
    const gw = gateway({ OPERATOR_KEYS });
    const seeded = await request(gw.app).get(`/admin/v1/merchants/${MERCHANT_ID}`).set(auth);
    expect(seeded.status).toBe(200);
    expect(JSON.stringify(seeded.body)).not.toContain(SIGN_KEY);
    const created = await request(gw.app)
      .post('/admin/v1/merchants')
      .set(auth)
      .send({ merchant_id: 'M2', name: 'Two', accounts: [{ account_id: 'A1' }] });
    expect(created.status).toBe(201);
    const key = created.body.accounts[0].sign_key as string;
    const paid = await request(gw.app)
      .post('/v1/authorise')
      .set('accept', 'application/json')
      .send(authoriseBody({ merchant_id: 'M2', account_id: 'A1', items: undefined, item_total: undefined }, key));
    expect(paid.status).toBe(200);
    expect((await request(gw.app).patch('/admin/v1/merchants/M2').set(auth).send({ name: 'Two Ltd' })).body.name).toBe('Two Ltd');
    expect((await request(gw.app).post('/admin/v1/merchants/M2/accounts').set(auth).send({ account_id: 'A2' })).status).toBe(201);
    expect(
      (await request(gw.app).patch('/admin/v1/merchants/M2/accounts/A2').set(auth).send({ capture_mode: 'auto' })).body.capture_mode,
    ).toBe('auto');
    const rotated = await request(gw.app).post('/admin/v1/merchants/M2/accounts/A1/sign-keys').set(auth).send({});
    expect(rotated.status).toBe(201);
    expect(Date.parse(rotated.body.previous_expires_at) - clock.now()).toBe(86_400_000);
    expect(
      (await request(gw.app).post('/admin/v1/merchants/M2/portal-users').set(auth).send({ email: 'a@two.example', role: 'viewer' })).status,
    ).toBe(201);
    expect((await request(gw.app).delete('/admin/v1/merchants/M2/portal-users/a@two.example').set(auth)).status).toBe(204);
    const audit = await request(gw.app).get('/admin/v1/audit?merchant_id=M2').set(auth);
    expect(audit.body.audit.map((e: { action: string }) => e.action)).toEqual([
      'portal_user_removed',
      'portal_user_invited',
      'sign_key_rotated',
      'account_updated',
      'account_created',
      'merchant_updated',
      'merchant_created',
    ]);
  });

  it('then bad input is a 400 naming the field and writes nothing', async () => {
    const gw = gateway({ OPERATOR_KEYS });
    const cases: [string, string, unknown, string][] = [
      ['post', '/admin/v1/merchants', { merchant_id: 'M{1}', name: 'x', accounts: [{ account_id: 'A' }] }, 'merchant_id'],
      ['post', '/admin/v1/merchants', { merchant_id: 'M3', name: 'x', accounts: [] }, 'accounts'],
      [
        'post',
        '/admin/v1/merchants',
        { merchant_id: 'M3', name: 'x', accounts: [{ account_id: 'A', sign_key: 'mine-mine-mine' }] },
        'accounts.0.sign_key',
      ],
      [
        'post',
        '/admin/v1/merchants',
        { merchant_id: 'M3', name: 'x', accounts: [{ account_id: 'A', routing: { connector_code: 'nope' } }] },
        'accounts.0.routing.connector_code',
      ],
      ['post', '/admin/v1/merchants', { merchant_id: 'M3', name: 'x', extra: 1, accounts: [{ account_id: 'A' }] }, 'extra'],
      ['patch', `/admin/v1/merchants/${MERCHANT_ID}`, { status: 'closed' }, 'status'],
      ['patch', `/admin/v1/merchants/${MERCHANT_ID}/accounts/${ACCOUNT_ID}`, { account_id: 'B' }, 'account_id'],
      ['patch', `/admin/v1/merchants/${MERCHANT_ID}/accounts/${ACCOUNT_ID}`, { currencies: ['XXX1'] }, 'currencies.0'],
      [
        'post',
        `/admin/v1/merchants/${MERCHANT_ID}/accounts/${ACCOUNT_ID}/sign-keys`,
        { previous_expires_in_seconds: 604_801 },
        'previous_expires_in_seconds',
      ],
      ['post', `/admin/v1/merchants/${MERCHANT_ID}/portal-users`, { email: 'not-an-email', role: 'admin' }, 'email'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await (request(gw.app) as unknown as Record<string, (p: string) => request.Test>)[method]!(path)
        .set(auth)
        .send(body as object);
      expect({ path, status: res.status, field: res.body.field }).toEqual({ path, status: 400, field });
    }
    expect((await request(gw.app).get('/admin/v1/merchants/M3').set(auth)).status).toBe(404);
    const audit = await request(gw.app).get('/admin/v1/audit').set(auth);
    expect(audit.body.audit.every((e: { action: string }) => e.action === 'merchant_seeded')).toBe(true);
  });
});
