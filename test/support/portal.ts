import request from 'supertest';
import type { Express } from 'express';
import { hashPassword } from '../../src/core/portal/password.js';
import type { MerchantsFile } from '../../src/core/records/directory.js';
import { testMerchants } from './gateway.js';

/** Another merchant, with its own account and admin: it must never see the test merchant's payments. */
export const OTHER_MERCHANT_ID = '2000002';
export const OTHER_ACCOUNT_ID = '2000002001';

export const PORTAL = {
  admin: { email: 'ops@shop.example', password: 'admin-passphrase-1' },
  viewer: { email: 'support@shop.example', password: 'viewer-passphrase-1' },
  other: { email: 'admin@other.example', password: 'other-passphrase-1' },
} as const;

/** The test merchants plus portal users (hashed at the lowest allowed cost, ln=14, to keep tests quick) and a second merchant. */
export async function portalMerchants(): Promise<MerchantsFile> {
  const cost = { ln: 14, r: 8, p: 1 };
  const [admin, viewer, other] = await Promise.all([
    hashPassword(PORTAL.admin.password, cost),
    hashPassword(PORTAL.viewer.password, cost),
    hashPassword(PORTAL.other.password, cost),
  ]);
  const file = testMerchants();
  file.merchants[0]!.portal_users = [
    { email: PORTAL.admin.email, password_hash: admin, role: 'admin' },
    { email: PORTAL.viewer.email, password_hash: viewer, role: 'viewer' },
  ];
  file.merchants.push({
    merchant_id: OTHER_MERCHANT_ID,
    name: 'Other Shop',
    accounts: [{ account_id: OTHER_ACCOUNT_ID, sign_key: 'other-sign-key-0003' }],
    portal_users: [{ email: PORTAL.other.email, password_hash: other, role: 'admin' }],
  } as unknown as MerchantsFile['merchants'][number]);
  return file;
}

/** The value of a form's hidden `_csrf` field in a page. */
export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no _csrf field in the page');
  return m[1]!;
}

/** A browser-like client: keeps cookies, signs in through the form (with its CSRF token). */
export async function signedIn(app: Express, user: { email: string; password: string }, ip?: string) {
  const agent = request.agent(app);
  const form = await agent.get('/portal/login');
  const res = await agent
    .post('/portal/login')
    .set(ip ? { 'X-Forwarded-For': ip } : {})
    .type('form')
    .send({ _csrf: csrfOf(form.text), email: user.email, password: user.password });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}: ${res.text.slice(0, 400)}`);
  return agent;
}

/** Posts a portal form as the page would: the session's CSRF token taken from the page it is on. */
export async function postForm(agent: ReturnType<typeof request.agent>, page: string, action: string, fields: Record<string, string>) {
  const html = (await agent.get(page)).text;
  return agent
    .post(action)
    .type('form')
    .send({ _csrf: csrfOf(html), ...fields });
}

/** The `_csrf` token of the page's form that posts to `action` (each form of a page carries its own). */
export function tokenOfForm(html: string, action: string): string {
  const at = html.indexOf(`action="${action}"`);
  if (at < 0) throw new Error(`no form posting to ${action} in the page`);
  const m = /name="_csrf" value="([^"]+)"/.exec(html.slice(at));
  if (!m) throw new Error(`the form posting to ${action} has no _csrf field`);
  return m[1]!;
}
