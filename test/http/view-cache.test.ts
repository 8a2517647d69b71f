import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { makeGateway } from '../support/gateway.js';

describe('compiled page templates', () => {
  it('when the gateway runs without NODE_ENV (as `npm start` does), then compiled views are cached; in development they are not', async () => {
    const gw = makeGateway({ name: 'view-cache' });
    const saved = process.env.NODE_ENV;
    delete process.env.NODE_ENV;
    try {
      expect(createApp(gw.deps).get('view cache')).toBe(true);
      expect(createApp(gw.deps, { development: true }).get('view cache')).toBe(false);
    } finally {
      if (saved !== undefined) process.env.NODE_ENV = saved;
    }
    await gw.close();
  });
});
