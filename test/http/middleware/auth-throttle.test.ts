import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { authoriseBody } from '../../support/gateway.js';
import { redisWorld } from '../../support/redis-world.js';

const world = redisWorld('auth-throttle');
const clock = new ManualClock();

describe('when a client address fails authentication again and again (finding 9)', () => {
  it('then past AUTH_FAILURES_PER_MINUTE its calls are refused with 429, while other addresses go on', async () => {
    const gw = world.gateway('auth-throttle', clock, { env: { AUTH_FAILURES_PER_MINUTE: '5', TRUST_PROXY: 'true' } });
    const forged = JSON.stringify({ ...authoriseBody(), encryption_data: 'ab'.repeat(32) });
    const from = (ip: string, text: string) =>
      request(gw.app).post('/v1/authorise').set('X-Forwarded-For', ip).set('Accept', 'application/json').type('form').send(text);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await from('198.51.100.9', forged)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const blocked = await from('198.51.100.9', JSON.stringify(authoriseBody()));
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('RATE_LIMITED');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await from('198.51.100.10', JSON.stringify(authoriseBody()))).status).toBe(200);
  });

  it('then without TRUST_PROXY the X-Forwarded-For header names no address: the calls count against the socket address', async () => {
    const gw = world.gateway('auth-throttle-no-proxy', clock, { env: { AUTH_FAILURES_PER_MINUTE: '3' } });
    const forged = JSON.stringify({ ...authoriseBody(), encryption_data: 'ab'.repeat(32) });
    const from = (ip: string, text: string) =>
      request(gw.app).post('/v1/authorise').set('X-Forwarded-For', ip).set('Accept', 'application/json').type('form').send(text);
    // three forged calls, each claiming another address, are one address's three failures
    for (const ip of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) expect((await from(ip, forged)).status).toBe(401);
    expect((await from('198.51.100.4', JSON.stringify(authoriseBody()))).status).toBe(429);
  });

  it('then failures sent to another spelling of an endpoint (/V1/AUTHORISE, /v1/capture/) count, and its calls are refused too', async () => {
    const gw = world.gateway('auth-throttle-path-case', clock, { env: { AUTH_FAILURES_PER_MINUTE: '3' } });
    const forged = JSON.stringify({ ...authoriseBody(), encryption_data: 'ab'.repeat(32) });
    const to = (path: string, text: string) => request(gw.app).post(path).set('Accept', 'application/json').type('form').send(text);
    for (const path of ['/V1/AUTHORISE', '/v1/authorise/', '/v1/Authorise']) expect((await to(path, forged)).status).toBe(401);
    expect((await to('/v1/authorise', JSON.stringify(authoriseBody()))).status).toBe(429);
    expect((await to('/V1/CAPTURE/', JSON.stringify(authoriseBody()))).status).toBe(429);
  });
});
