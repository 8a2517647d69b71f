import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { redisWorld } from '../../../test/support/redis-world.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, type TestGateway } from '../../../test/support/gateway.js';
import { jobOf } from '../../../test/support/jobs.js';
import { pay, postBatch, ref } from '../../../test/support/operations.js';
import { CARDS } from '../../../test/support/cards.js';
import { GatewayClient } from '../src/index.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const run = promisify(execFile);
const ACCOUNT_FLAGS = ['--merchant', MERCHANT_ID, '--account', ACCOUNT_ID, '--key', SIGN_KEY];

const world = redisWorld('sdk-disputes');
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

beforeAll(() => {
  // the CLI as built from this source (a dist built before the dispute command would not know it)
  execFileSync('npx', ['tsc', '-p', 'packages/sdk/tsconfig.json'], { cwd: ROOT, stdio: 'inherit' });
});

async function disputedGateway(card: string): Promise<{ gw: TestGateway; url: string; disputeId: string; clock: ManualClock }> {
  const clock = new ManualClock(Date.now());
  const gw = world.gateway('sdk-disputes', clock);
  const server = await new Promise<Server>((resolve) => {
    const s = gw.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  cleanup.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  const paid = await pay(gw.app, { card });
  await postBatch(gw.app, 'capture', [ref(paid)]);
  await jobOf(gw, 'dispute-steps').runOnce();
  return { gw, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, disputeId: `${paid.transaction_id}-D01`, clock };
}

describe('the SDK’s dispute calls', () => {
  it('when a dispute is searched, its evidence saved and sent through the typed calls, then each answer is signed and checked', async () => {
    const { url, disputeId } = await disputedGateway(CARDS.disputeFraud);
    const client = new GatewayClient({ baseUrl: url, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY });
    const found = await client.retrievalDispute({ dispute_id: [disputeId] });
    expect(found.dispute_orders.map((d) => [d.dispute_id, d.dispute_status, d.dispute_reason])).toEqual([
      [disputeId, 'needs_response', 'fraudulent'],
    ]);
    const draft = await client.disputeEvidence({ dispute_id: disputeId, product_description: 'Blue T-shirt', submit: '0' });
    expect(draft).toMatchObject({ return_status: '1', dispute_status: 'needs_response', product_description: 'Blue T-shirt' });
    const sent = await client.disputeEvidence({ dispute_id: disputeId, uncategorized_text: 'receipt', submit: '1' });
    expect(sent.dispute_status).toBe('under_review');
    const refused = await client.disputeAccept({ dispute_id: disputeId });
    expect(refused.return_status).toBe('0');
    expect(refused.return_message).toMatch(/under review/);
  });
});

describe('gateway-sdk dispute', () => {
  it('when evidence is sent from a file, then the dispute is under review with the file’s text, and a second send is refused with exit code 1', async () => {
    const { gw, url, disputeId } = await disputedGateway(CARDS.disputeNotReceived);
    const dir = mkdtempSync(join(tmpdir(), 'sdk-dispute-'));
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'Delivered on 21 November, signed by the shopper: winning_evidence');
    const out = await run(process.execPath, [CLI, 'dispute', 'evidence', disputeId, '--file', file, '--url', url, ...ACCOUNT_FLAGS]);
    expect(JSON.parse(out.stdout)).toMatchObject({ return_status: '1', dispute_status: 'under_review' });
    expect(out.stderr).toContain('answer signature: ok');
    const stored = await gw.deps.store.getDispute(MERCHANT_ID, disputeId);
    expect(stored!.evidence.uncategorized_text).toBe('Delivered on 21 November, signed by the shopper: winning_evidence');
    const again = await run(process.execPath, [CLI, 'dispute', 'evidence', disputeId, '--file', file, '--url', url, ...ACCOUNT_FLAGS]).then(
      () => undefined,
      (e: { code: number; stdout: string }) => e,
    );
    expect(again?.code).toBe(1);
    expect(JSON.parse(again!.stdout).return_status).toBe('0');
  });

  it('when --draft and --field are given, then the file is kept as that field of a draft; accept then loses the dispute', async () => {
    const { gw, url, disputeId } = await disputedGateway(CARDS.disputeNotReceived);
    const dir = mkdtempSync(join(tmpdir(), 'sdk-dispute-'));
    const file = join(dir, 'tracking.txt');
    writeFileSync(file, 'TRACK-0001');
    await run(process.execPath, [
      CLI,
      'dispute',
      'evidence',
      disputeId,
      '--file',
      file,
      '--field',
      'shipping_tracking',
      '--draft',
      '--url',
      url,
      ...ACCOUNT_FLAGS,
    ]);
    expect(await gw.deps.store.getDispute(MERCHANT_ID, disputeId)).toMatchObject({
      status: 'needs_response',
      evidence: { shipping_tracking: 'TRACK-0001' },
    });
    const accepted = await run(process.execPath, [CLI, 'dispute', 'accept', disputeId, '--url', url, ...ACCOUNT_FLAGS]);
    expect(JSON.parse(accepted.stdout).dispute_status).toBe('lost');
    const bad = await run(process.execPath, [CLI, 'dispute', 'evidence', disputeId, '--url', url, ...ACCOUNT_FLAGS]).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad?.code).toBe(2);
    expect(bad?.stderr).toContain('--file');
  });
});
