import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { appRoutes } from '../../src/http/route-table.js';
import { makeGateway, type TestGateway } from '../support/gateway.js';

/**
 * Issue 36 finding 9: look-ups by request data use own properties or Maps. Names of Object's own members
 * (`constructor`, `__proto__`, `toString`, ...) in a path, a query or a cookie name nothing the gateway has:
 * before, /docs/assets/constructor read Object's constructor as an asset and answered 500.
 */
const clock = new ManualClock(Date.now());
let gw: TestGateway;

beforeAll(() => {
  gw = makeGateway({ name: 'request-data-lookups', clock });
});
afterAll(async () => {
  await gw.close();
});

const MEMBER_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__'];

describe('when a docs asset is named after a member of Object (finding 9)', () => {
  it.each(MEMBER_NAMES)('then /docs/assets/%s answers 404, as any unknown asset', async (name) => {
    const res = await request(gw.app).get(`/docs/assets/${name}`).set('Accept', 'application/json');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('then the real assets are still served', async () => {
    const css = await request(gw.app).get('/docs/assets/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
  });
});

describe('when any GET route is given such a name in its path, its query and a cookie', () => {
  it('then no route answers 5xx', async () => {
    const routes = appRoutes(gw.app).filter((r) => r.method === 'GET');
    expect(routes.length).toBeGreaterThan(15);
    for (const { path } of routes) {
      for (const name of MEMBER_NAMES) {
        const url = `${path.replace(/:\w+/g, encodeURIComponent(name))}?${name}=1&lang=${name}&return_url=${name}`;
        const res = await request(gw.app).get(url).set('Cookie', `${name}=1; portal_session=${name}`).set('Accept-Language', name);
        expect(res.status, url).toBeLessThan(500);
      }
    }
  });
});
