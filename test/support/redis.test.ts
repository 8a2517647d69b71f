import { afterAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from './redis.js';

const started: RedisServer[] = [];
afterAll(async () => {
  for (const r of started) await r.stop();
});

describe('when the port chosen for a test Redis is taken by another test process first', () => {
  it('then startRedis starts its own server on another port instead of sharing the other one', async () => {
    const other = await startRedis('port-taken-other');
    started.push(other);
    const ours = await startRedis('port-taken-ours', [], other.port);
    started.push(ours);
    expect(ours.port).not.toBe(other.port);
    const a = other.client();
    const b = ours.client();
    await a.set('owner', 'other');
    expect(await b.get('owner')).toBeNull();
    const pidOf = async (c: typeof a) => /process_id:(\d+)/.exec(await c.info('server'))![1];
    expect(await pidOf(b)).not.toBe(await pidOf(a));
  });
});
