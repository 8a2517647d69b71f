import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { openStore } from '../../../src/compose.js';
import { authoriseBody, makeGateway } from '../../support/gateway.js';

const xml = new XMLParser({ parseTagValue: false });

describe('a token whose card was sealed under a key no longer configured', () => {
  it('when it pays, then the payment is refused with 400 naming token_id, not a 500', async () => {
    const store = openStore(undefined);
    const before = makeGateway({ name: 'token-old-key', store });
    const made = await request(before.app)
      .post('/v1/authorise')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(JSON.stringify(authoriseBody({ token_flag: 'YES' })));
    const tokenId = xml.parse(made.text).respon.token_id as string;
    expect(tokenId).toBeTruthy();
    const after = makeGateway({ name: 'token-new-key', store, env: { VAULT_KEYS: `k9:${'b2'.repeat(32)}`, VAULT_KEY: '' } });
    const paid = await request(after.app)
      .post('/v1/authorise')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .set('Accept', 'application/json')
      .send(
        JSON.stringify(
          authoriseBody({
            token_id: tokenId,
            card: undefined,
            expiration_month: undefined,
            expiration_year: undefined,
            security_code: undefined,
          }),
        ),
      );
    expect(paid.status).toBe(400);
    expect(paid.text).toContain('token_id');
  });
});
