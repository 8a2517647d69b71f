import { describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { backgroundJobs } from '../../../src/compose.js';
import { redisWorld } from '../../../test/support/redis-world.js';
import { ACCOUNT_FLAGS, CLI, builtCli, cleanupAfterEach, run } from './support/cli.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, type TestGateway } from '../../../test/support/gateway.js';
import { authorise, dailyPlan } from '../../../test/support/jobs.js';
import { NotificationReceiver } from '../../../test/support/receiver.js';
import { GatewayApiError, GatewayClient, verifyNotification } from '../src/index.js';

const world = redisWorld('sdk-test-clocks');
const cleanup = cleanupAfterEach();
builtCli(true);

/** A gateway on Redis listening on a port, its test clock job and notification delivery running as main runs them. */
async function listeningGateway(name: string): Promise<{ gw: TestGateway; client: GatewayClient; url: string }> {
  const gw = world.gateway(name, new ManualClock(Date.now()));
  const server = await new Promise<Server>((resolve) => {
    const s = gw.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const jobs = backgroundJobs(gw.deps, gw.config).filter((j) => j.name === 'test-clocks' || j.name === 'notification-delivery');
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const job of jobs) await job.runOnce();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  cleanup.push(async () => {
    running = false;
    await loop;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { gw, url, client: new GatewayClient({ baseUrl: url, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY }) };
}

describe('the SDK’s test clock calls', () => {
  it('when a clock is made, advanced and deleted through the typed calls, then each answer is signed and the clock’s notification verifies', async () => {
    const { gw, client } = await listeningGateway('sdk-clock-calls');
    const r = await new NotificationReceiver().start();
    world.receivers.push(r);
    const made = await client.testClock({ request_id: 'sdk-1', frozen_time: '20300101000000', name: 'sdk', notify_url: r.url });
    expect(made).toMatchObject({ return_status: '1', name: 'sdk', frozen_time: '20300101000000', clock_status: 'ready' });
    const sub = await authorise(gw, { test_clock_id: made.test_clock_id, subscription: dailyPlan({ billing_cycle: 3 }) });
    const started = await client.testClockAdvance({ test_clock_id: made.test_clock_id, frozen_time: '20300103000000' });
    expect(started.clock_status).toBe('advancing');
    for (let i = 0; i < 100 && r.received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const listed = await client.retrievalTestClock();
    expect(listed.test_clocks).toEqual([
      { test_clock_id: made.test_clock_id, name: 'sdk', frozen_time: '20300103000000', clock_status: 'ready' },
    ]);
    expect(await gw.deps.store.getContract(MERCHANT_ID, sub.recurring_id!)).toMatchObject({ charges_made: 3, status: 'Completed' });
    const notice = r.received.find((n) => n.fields.notify_type === 'test_clock')!;
    const verdict = verifyNotification({
      rawBody: notice.rawBody,
      xSignature: String(notice.headers['x-signature']),
      signKey: SIGN_KEY,
      nowSeconds: Math.floor(gw.deps.clock.now() / 1000),
    });
    expect(verdict).toMatchObject({ ok: true, fields: { test_clock_id: made.test_clock_id, clock_status: 'ready' } });

    const refused = await client.testClockAdvance({ test_clock_id: made.test_clock_id, frozen_time: '20300102000000' }).catch((e) => e);
    expect(refused).toBeInstanceOf(GatewayApiError);
    expect((refused as GatewayApiError).status).toBe(400);
    expect((refused as GatewayApiError).message).toMatch(/^frozen_time/);
    expect((await client.testClockDelete({ test_clock_id: made.test_clock_id })).return_status).toBe('1');
    expect((await client.retrievalTestClock()).test_clocks).toEqual([]);
  });

  it('when `gateway-sdk clock advance <id> <time>` runs, then it waits for the clock to be ready and prints it; a refusal exits 1', async () => {
    const { url, client } = await listeningGateway('sdk-clock-cli');
    const made = await client.testClock({ request_id: 'sdk-cli', frozen_time: '20300101000000' });
    const { stdout } = await run(process.execPath, [
      CLI,
      'clock',
      'advance',
      made.test_clock_id,
      '20300201000000',
      '--url',
      url,
      ...ACCOUNT_FLAGS,
    ]);
    expect(JSON.parse(stdout)).toMatchObject({ test_clock_id: made.test_clock_id, frozen_time: '20300201000000', clock_status: 'ready' });
    const failed = await run(process.execPath, [
      CLI,
      'clock',
      'advance',
      made.test_clock_id,
      '20300101000000',
      '--url',
      url,
      ...ACCOUNT_FLAGS,
    ]).then(
      () => undefined,
      (e: { code: number; stdout: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(JSON.parse(failed!.stdout)).toMatchObject({ status: 400, message: expect.stringMatching(/^frozen_time/) });
  });
});
