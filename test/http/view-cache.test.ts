import ejs from 'ejs';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { makeGateway } from '../support/gateway.js';

const FRONT_DOOR = fileURLToPath(new URL('../../views/front-door.ejs', import.meta.url));
const cached = () => (ejs as unknown as { cache: { get(key: string): unknown; reset(): void } }).cache;

describe('compiled page templates', () => {
  it('when the gateway runs without NODE_ENV (as `npm start` does), then compiled views are cached; in development they are not', async () => {
    const gw = makeGateway({ name: 'view-cache' });
    const saved = process.env.NODE_ENV;
    delete process.env.NODE_ENV;
    try {
      expect(createApp(gw.deps).get('view cache')).toBe(true);
      expect(createApp(gw.deps, { development: true }).get('view cache')).toBe(false);

      // the engine keeps what it compiled out of development, and compiles afresh in development
      cached().reset();
      expect((await request(createApp(gw.deps, { development: true })).get('/')).status).toBe(200);
      expect(cached().get(FRONT_DOOR)).toBeUndefined();
      expect((await request(createApp(gw.deps)).get('/')).status).toBe(200);
      expect(cached().get(FRONT_DOOR)).toBeTypeOf('function');
    } finally {
      if (saved !== undefined) process.env.NODE_ENV = saved;
    }
    await gw.close();
  });
});
