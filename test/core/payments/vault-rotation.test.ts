import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { createCipheriv, randomBytes } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { redisWorld } from '../../support/redis-world.js';
import { ACCOUNT_ID, authoriseBody, MERCHANT_ID, VAULT_KEY_HEX, type TestGateway } from '../../support/gateway.js';
import { CARDS } from '../../support/cards.js';

/**
 * Vault key rotation on the real store (issue 11, item 9): cards sealed before the rotation, and before key
 * ids existed, still pay; new cards are sealed with the newest key; a resent order is still recognised.
 */
const world = redisWorld('vault-rotation');
const xml = new XMLParser({ parseTagValue: false });

async function post(gw: TestGateway, body: Record<string, unknown>): Promise<Record<string, string>> {
  const res = await request(gw.app)
    .post('/v1/authorise')
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send(JSON.stringify(body));
  expect(res.status).toBe(200);
  return xml.parse(res.text).respon as Record<string, string>;
}

const byToken = (token: string) =>
  authoriseBody({ token_id: token, card: undefined, expiration_month: undefined, expiration_year: undefined, security_code: undefined });

describe('when the vault key is rotated (VAULT_KEYS beside the old VAULT_KEY)', () => {
  it('then old tokens, tokens sealed before key ids, new tokens and resent orders all keep working', async () => {
    const clock = new ManualClock();
    const before = world.gateway('vault-rotation-before', clock);
    const first = authoriseBody({ token_flag: 'YES', card: CARDS.approvedVisa2 });
    const firstDoc = await post(before, first);
    expect(firstDoc.order_status).toBe('1');
    const oldToken = firstDoc.token_id!;
    expect((await before.deps.store.getCard(MERCHANT_ID, oldToken))!.sealed).toMatch(/^v2\.k0\./);

    // a card stored by the gateway before this change: base64(iv + tag + ciphertext) under the raw VAULT_KEY
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(VAULT_KEY_HEX, 'hex'), iv);
    const ct = Buffer.concat([cipher.update(CARDS.approved, 'utf8'), cipher.final()]);
    const legacy = Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
    const card = { masked: '424242***4242', bin: '424242', last4: '4242', brand: 'visa', exp_month: '12', exp_year: '2034' };
    await before.deps.store.commit({
      merchantId: MERCHANT_ID,
      cards: [{ token: 'tok_legacy', merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, sealed: legacy, card, created_at: clock.now() }],
    });

    const newKey = randomBytes(32).toString('base64');
    const after = world.gateway('vault-rotation-after', clock, { env: { VAULT_KEYS: `k1:${newKey}` } });
    expect((await post(after, byToken(oldToken))).order_status).toBe('1');
    const legacyDoc = await post(after, byToken('tok_legacy'));
    expect(legacyDoc.order_status).toBe('1');
    expect(legacyDoc.card).toBe('424242***4242');

    const fresh = await post(after, authoriseBody({ token_flag: 'YES' }));
    expect((await after.deps.store.getCard(MERCHANT_ID, fresh.token_id!))!.sealed).toMatch(/^v2\.k1\./);

    // the order sent before the rotation, sent again: the same payment, not "other content under a used order_no"
    const resent = await post(after, first);
    expect(resent.transaction_id).toBe(firstDoc.transaction_id);
    expect(resent.order_status).toBe('1');

    // once VAULT_KEY is dropped, cards sealed under k1 still pay
    const only = world.gateway('vault-rotation-only-new', clock, { env: { VAULT_KEY: '', VAULT_KEYS: `k1:${newKey}` } });
    expect(only.config.vaultKeys.map((k) => k.id)).toEqual(['k1']);
    expect((await post(only, byToken(fresh.token_id!))).order_status).toBe('1');
  });
});
