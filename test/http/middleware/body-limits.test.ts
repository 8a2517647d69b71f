import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { canonicalJson } from '../../../src/core/kernel/fingerprint.js';
import { bodyLimitFor, bracketsExceed, jsonDepthExceeds, valueDepthExceeds } from '../../../src/http/middleware/body.js';
import { checkoutBody } from '../../support/checkout.js';
import { redisWorld } from '../../support/redis-world.js';

const world = redisWorld('body-limits');
const clock = new ManualClock();

const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

describe('when a body is nested deeply (findings 3 and 4)', () => {
  it('then a 1 MB authorise body nested 500,000 levels, and a capture nested 20,000 within its limit, are refused with 400 before they are parsed', async () => {
    const gw = world.gateway('body-limits-depth', clock);
    for (const [path, levels] of [
      ['/v1/authorise', 500_000],
      ['/v1/capture', 20_000],
    ] as const) {
      const text = `{"merchant_id":"1000001","capture_orders":${nested(levels)}}`;
      const res = await request(gw.app).post(path).set('Accept', 'application/json').type('form').send(text);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_BODY', field: 'body' });
      expect(res.body.message).toBe('body: is nested deeper than 32 levels');
    }
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

describe('when a body is over its call’s limit (issue 55 finding 1)', () => {
  it('then each call refuses one byte over its own limit with 413 naming it, and reads a body at its limit', async () => {
    const gw = world.gateway('body-limits-size', clock);
    for (const path of ['/v1/authorise', '/v1/capture', '/v1/cancelsubscription', '/v1/disputeEvidence']) {
      const limit = bodyLimitFor(path);
      const head = `{"merchant_id":"1000001","account_id":"1000001001","encryption_data":"${'0'.repeat(64)}","note":"`;
      const at = head + 'x'.repeat(limit - head.length - 2) + '"}';
      const under = await request(gw.app).post(path).set('Accept', 'application/json').type('form').send(at);
      expect(under.status, path).toBe(401); // read whole, then refused for its signature
      const over = await request(gw.app)
        .post(path)
        .set('Accept', 'application/json')
        .type('form')
        .send(at + ' ');
      expect(over.status, path).toBe(413);
      expect(over.body.message).toBe(`body: must be at most ${limit / 1024} KB`);
    }
    expect(bodyLimitFor('/v1/capture')).toBeLessThan(bodyLimitFor('/v1/refund'));
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
