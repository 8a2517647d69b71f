import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { canonicalJson } from '../../../src/core/kernel/fingerprint.js';
import { bracketsExceed, jsonDepthExceeds, valueDepthExceeds } from '../../../src/http/middleware/body.js';
import { authoriseBody } from '../../support/gateway.js';
import { checkoutBody } from '../../support/checkout.js';
import { redisWorld } from '../../support/redis-world.js';

const world = redisWorld('body-limits');
const clock = new ManualClock();

const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

describe('when a body is nested deeply (findings 3 and 4)', () => {
  it('then a 1 MB batch body nested 500,000 levels is refused with 400 before it is parsed', async () => {
    const gw = world.gateway('body-limits-depth', clock);
    const text = `{"merchant_id":"1000001","capture_orders":${nested(500_000)}}`;
    const res = await request(gw.app).post('/v1/capture').type('form').send(text);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_BODY', field: 'body', return_status: '0' });
    expect(res.body.message).toBe('body: is nested deeper than 32 levels');
  });

  it('then a correctly signed checkout carrying 5,000 levels in a field is a 400, not a 500 from the fingerprint', async () => {
    const gw = world.gateway('body-limits-signed', clock);
    const body = checkoutBody();
    const text = JSON.stringify(body).replace(/}$/, `,"custom_blob":${nested(5_000)}}`);
    const res = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').type('form').send(text);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_BODY');
  });

  it('then 32 levels still pass, and the depth count ignores brackets inside strings', () => {
    expect(jsonDepthExceeds(`{"a":${nested(31)}}`, 32)).toBe(false);
    expect(jsonDepthExceeds(`{"a":${nested(32)}}`, 32)).toBe(true);
    expect(jsonDepthExceeds(`{"a":"${'['.repeat(100)}\\"["}`, 32)).toBe(false);
    // the check on a parsed small body counts the same levels
    expect(valueDepthExceeds(JSON.parse(`{"a":${nested(31)}}`), 32)).toBe(false);
    expect(valueDepthExceeds(JSON.parse(`{"a":${nested(32)}}`), 32)).toBe(true);
    expect(valueDepthExceeds(JSON.parse(`{"a":"${'['.repeat(100)}","b":{"c":[1,{"d":[]}]}}`), 32)).toBe(false);
    // a text with at most 32 opening brackets cannot nest deeper; one with more (in strings too) is walked
    expect(bracketsExceed(`{"a":${nested(31)}}`, 32)).toBe(false);
    expect(bracketsExceed(`{"a":${nested(32)}}`, 32)).toBe(true);
    expect(bracketsExceed(`{"a":"${'['.repeat(40)}"}`, 32)).toBe(true);
    expect(bracketsExceed(`${'{"a":['.repeat(16)}1${']}'.repeat(16)}`, 32)).toBe(false);
    expect(bracketsExceed(`${'{"a":['.repeat(17)}1${']}'.repeat(17)}`, 32)).toBe(true);
  });

  it('then a single-order body nested 40 levels is refused after its (cheap) parse with the same message', async () => {
    const gw = world.gateway('body-limits-small', clock);
    const res = await request(gw.app)
      .post('/v1/authorise')
      .type('form')
      .send(`{"merchant_id":"1000001","custom":${nested(40)}}`);
    expect(res.status).toBe(400);
    expect(res.text).toContain('body: is nested deeper than 32 levels');
  });

  it('then the fingerprint is computed without recursion at any depth, keys sorted', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = { k: deep };
    expect(canonicalJson(deep).length).toBe(100_000 * 6 + 3);
    expect(canonicalJson({ b: [1, { d: null, c: 'x' }], a: true, u: undefined })).toBe('{"a":true,"b":[1,{"c":"x","d":null}],"u":null}');
  });
});

describe('when a body is over its route limit (finding 3)', () => {
  it('then /v1/authorise and /v1/checkout refuse 64 KB with 413, while a batch takes up to 1 MB', async () => {
    const gw = world.gateway('body-limits-size', clock);
    const big = JSON.stringify(authoriseBody({ note: 'x'.repeat(65 * 1024) }));
    const single = await request(gw.app).post('/v1/authorise').set('Accept', 'application/json').type('form').send(big);
    expect(single.status).toBe(413);
    expect(single.body.message).toBe('body: must be at most 64 KB');
    const checkout = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').type('form').send(big);
    expect(checkout.status).toBe(413);
    const batch = `{"merchant_id":"1000001","account_id":"1000001001","pad":"${'x'.repeat(900 * 1024)}","capture_orders":[]}`;
    const capture = await request(gw.app).post('/v1/capture').type('form').send(batch);
    expect(capture.status).toBe(400); // read and checked: no signature
    const over = await request(gw.app)
      .post('/v1/capture')
      .type('form')
      .send(batch + 'x'.repeat(200 * 1024));
    expect(over.status).toBe(413);
    expect(over.body.message).toBe('body: must be at most 1024 KB');
  });
});

describe('when a body is not valid JSON (finding 9)', () => {
  it('then the error names the body but quotes none of it', async () => {
    const gw = world.gateway('body-limits-echo', clock);
    const res = await request(gw.app)
      .post('/v1/authorise')
      .set('Accept', 'application/json')
      .type('form')
      .send('{"card":"4242424242424242", oops');
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('body: is not valid JSON');
    expect(res.text).not.toContain('4242');
    expect(res.text).not.toContain('oops');
  });
});
