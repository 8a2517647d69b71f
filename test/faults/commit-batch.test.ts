import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { connectRedis, RedisKv } from '../../src/store/redis-kv.js';
import { KvGatewayStore } from '../../src/store/gateway-store.js';
import { redisWorld } from '../support/redis-world.js';
import { MERCHANT_ID, ACCOUNT_ID, type TestGateway } from '../support/gateway.js';
import { jobOf } from '../support/jobs.js';
import { pay, postBatch, ref, type Paid } from '../support/operations.js';
import { instrumented } from '../support/faults.js';

const world = redisWorld('faults-commit-batch');
const MINUTE = 60_000;
const ORDERS = 10;

interface ScriptFault {
  /** scripts of fewer commits pass (a batch, not a single commit) */
  minCommits: number;
  /** what minCommits counts: the gateway's commits (the default), or the acquirer's records */
  of?: 'commits' | 'records';
  /** scripts whose every commit takes a claim pass (however a capture's claims were split between scripts) */
  spareClaims?: boolean;
  /** matching scripts that pass first */
  skip: number;
  /** 'answer-lost': Redis applies the script, its answer never arrives; 'not-sent': it never reaches Redis */
  mode: 'answer-lost' | 'not-sent';
  times: number;
}

/**
 * The gateway's commits and the acquirer's records in one call of the commit script, whose arguments are the key count, the keys, the
 * entry count, then per entry its control text and strings. The sandbox acquirer's put-if-absent records
 * (control text `1 1 0 n`) travel in the same script, and are not the gateway's commits.
 */
function entriesOf(args: readonly (string | number)[]): { commits: number; records: number; claims: number } {
  const keys = Number(args[0]);
  let at = 2 + keys;
  const counted = { commits: 0, records: 0, claims: 0 };
  for (let entry = 0; entry < Number(args[1 + keys]); entry++) {
    const control = String(args[at]);
    const strings = Number(control.split(' ')[1]);
    if (control.endsWith(' n')) counted.records++;
    else {
      counted.commits++;
      // a claim's commit writes the payment marked by its claim (claim.ts: written_by `<claim id>:claim`)
      if (args.slice(at + 1, at + 1 + strings).some((a) => String(a).includes(':claim"'))) counted.claims++;
    }
    at += 1 + strings;
  }
  return counted;
}

/**
 * The real Redis store, whose batched commit script fails on demand: the fault of a whole batch of commits
 * (a capture's claims, or its outcomes) at once, below the store's own code, as a timeout or a dropped
 * connection shows it to ioredis's caller.
 */
function storeWithScriptFaults(url: string) {
  const client = connectRedis(url);
  const kv = new RedisKv(client);
  const faults: ScriptFault[] = [];
  let fired = 0;
  const scripted = client as unknown as { gwCommit: (...args: (string | number)[]) => Promise<unknown> };
  const send = scripted.gwCommit.bind(client);
  scripted.gwCommit = async (...args) => {
    const counted = entriesOf(args);
    const fault = faults.find(
      (f) => f.times > 0 && counted[f.of ?? 'commits'] >= f.minCommits && !(f.spareClaims && counted.claims === counted.commits),
    );
    if (!fault) return send(...args);
    if (fault.skip > 0) {
      fault.skip--;
      return send(...args);
    }
    fault.times--;
    fired++;
    if (fault.mode === 'answer-lost') await send(...args);
    throw new Error('Command timed out');
  };
  const fail = (f: ScriptFault): ScriptFault => {
    faults.push(f);
    return f;
  };
  return { store: new KvGatewayStore(kv), fail, fired: () => fired };
}

async function payMany(gw: TestGateway): Promise<Paid[]> {
  const paid: Paid[] = [];
  for (let i = 0; i < ORDERS; i++) paid.push(await pay(gw.app, { notify_url: 'https://merchant.example/notify' }));
  return paid;
}

/** Every order captured once: by the payment, by the acquirer's records and by the capture notifications. */
async function expectCapturedOnce(gw: TestGateway, paid: Paid[], captures: number) {
  expect(captures).toBe(ORDERS);
  for (const p of paid) {
    expect(await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id)).toMatchObject({ status: '3100', captured: 1000 });
    expect(await gw.deps.store.ledgerLookup(`${p.transaction_id}-cap`)).toBeDefined();
    const notices = (await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, p.order_no, 10)).filter((n) => n.notify_type === 'capture');
    expect(notices).toHaveLength(1);
  }
}

describe("when a capture's commits travel in one script and that script fails (real Redis)", () => {
  it.each([
    ["the claims' script is applied but its answer is lost", 'claims', 0, 'answer-lost'],
    ["the outcomes' script is applied but its answer is lost", 'outcomes', 0, 'answer-lost'],
    ["the outcomes' script never reaches Redis (they are committed again)", 'outcomes', 0, 'not-sent'],
    // a capture writes two records per order (its marker and what was asked): the orders' records travel together
    ["the script carrying the acquirer's records is applied but its answer is lost", 'records', 0, 'answer-lost'],
  ] as const)('when %s, then every order answers captured and is captured once', async (_what, script, skip, mode) => {
    const faulty = storeWithScriptFaults(world.redis.url);
    const connector = instrumented();
    const gw = world.gateway(`batch-${script}-${mode}`, new ManualClock(), { store: faulty.store, wrapConnector: connector.wrap });
    const paid = await payMany(gw);
    faulty.fail({
      minCommits: 2,
      of: script === 'records' ? 'records' : 'commits',
      spareClaims: script === 'outcomes',
      skip,
      mode,
      times: 1,
    });
    const res = await postBatch(
      gw.app,
      'capture',
      paid.map((p) => ref(p)),
    );
    expect(faulty.fired()).toBe(1);
    expect(res.status).toBe(200);
    expect(res.body.capture_orders.map((o: { capture_status: string }) => o.capture_status)).toEqual(paid.map(() => '1'));
    await expectCapturedOnce(gw, paid, connector.calls.capture);
  });

  it("when the script carrying the acquirer's records never reaches Redis, then no order is captured, and capturing again captures each once", async () => {
    const faulty = storeWithScriptFaults(world.redis.url);
    const connector = instrumented();
    const gw = world.gateway('batch-records-not-sent', new ManualClock(), { store: faulty.store, wrapConnector: connector.wrap });
    const paid = await payMany(gw);
    // every script carrying records fails while the first capture runs, however the orders' records are batched
    const down = faulty.fail({ minCommits: 1, of: 'records', skip: 0, mode: 'not-sent', times: 1000 });
    const refused = await postBatch(
      gw.app,
      'capture',
      paid.map((p) => ref(p)),
    );
    expect(faulty.fired()).toBeGreaterThanOrEqual(1);
    down.times = 0;
    // the acquirer holds no record under the captures' references: each call counts as refused, nothing moved
    for (const o of refused.body.capture_orders)
      expect(o).toMatchObject({ capture_status: '0', error_message: expect.stringMatching(/^V4001:/) });
    for (const p of paid) {
      expect(await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id)).toMatchObject({ status: '3000', captured: 0 });
      expect(await gw.deps.store.ledgerLookup(`${p.transaction_id}-cap`)).toBeUndefined();
    }
    const again = await postBatch(
      gw.app,
      'capture',
      paid.map((p) => ref(p)),
    );
    expect(again.body.capture_orders.map((o: { capture_status: string }) => o.capture_status)).toEqual(paid.map(() => '1'));
    await expectCapturedOnce(gw, paid, connector.calls.capture - ORDERS);
  });

  it.each([
    ['is applied but its answer is lost', 'answer-lost', 1],
    ['never reaches Redis', 'not-sent', 2],
  ] as const)(
    "when the script carrying an authorisation's record at the acquirer %s, then the payment is approved once",
    async (_what, mode, asks) => {
      const faulty = storeWithScriptFaults(world.redis.url);
      const connector = instrumented();
      const gw = world.gateway(`authorise-record-${mode}`, new ManualClock(), { store: faulty.store, wrapConnector: connector.wrap });
      faulty.fail({ minCommits: 1, of: 'records', skip: 0, mode, times: 1 });
      // the acquirer's answer is read back from its record (lost answer), or it is asked again under the same reference
      const paid = await pay(gw.app);
      expect(faulty.fired()).toBe(1);
      expect(connector.calls.authorise).toBe(asks);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id)).toMatchObject({ status: '3000' });
      expect(JSON.parse((await gw.deps.store.ledgerLookup(paid.transaction_id))!)).toMatchObject({
        op: 'authorise',
        outcome: { kind: 'approved' },
      });
    },
  );

  it('when every outcome script fails, then the orders answer "being recorded" and recovery records each capture once', async () => {
    const clock = new ManualClock();
    const faulty = storeWithScriptFaults(world.redis.url);
    const connector = instrumented();
    const gw = world.gateway('batch-outcomes-down', clock, { store: faulty.store, wrapConnector: connector.wrap });
    const paid = await payMany(gw);
    // the claims pass (in one script or several: each read is sent as it is asked, so their answers may come
    // in more than one turn); every script with another commit (the outcomes, each tried again) fails
    const down = faulty.fail({ minCommits: 1, spareClaims: true, skip: 0, mode: 'not-sent', times: 1000 });
    const res = await postBatch(
      gw.app,
      'capture',
      paid.map((p) => ref(p)),
    );
    expect(res.status).toBe(200);
    for (const o of res.body.capture_orders)
      expect(o).toMatchObject({ capture_status: '0', error_message: expect.stringMatching(/^V5002:/) });
    expect(connector.calls.capture).toBe(ORDERS);
    // Redis answers again; after the claims' window the recovery job asks the acquirer and records each capture
    expect(faulty.fired()).toBeGreaterThanOrEqual(1);
    down.times = 0;
    clock.advance(2 * MINUTE);
    await jobOf(gw, 'pending-resolve').runOnce();
    await expectCapturedOnce(gw, paid, connector.calls.capture);
  });
});
