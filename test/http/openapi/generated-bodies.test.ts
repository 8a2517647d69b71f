import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ISO_4217 } from '../../../src/core/kernel/money.js';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { createGatewayServer } from '../../../src/http/server.js';
import { ACCOUNT_ID, authoriseBody, makeGateway, MERCHANT_ID, SIGN_KEY, testMerchants, type TestGateway } from '../../support/gateway.js';
import { sign } from '../../support/sign.js';
import { ContractDocument, type JsonSchema, type OpenApiDocument, type OperationObject } from '../../support/contract/document.js';
import { answerProblems } from '../../support/contract/check.js';
import { arbitraryOf } from '../../support/contract/arbitrary.js';

/**
 * Issue 43: request bodies generated from the document's own request schemas for every signed /v1 call,
 * signed by the call's x-request-signature with the test account's key, sent as merchants send them (a JSON
 * text, declared as JSON or as a form). Whatever the body: no 5xx, and the answer the client receives fits the
 * document (status listed, content type, body schema). At least 5,000 bodies; a failing seed replays with
 * GENERATED_BODIES_SEED.
 */
const BODIES = 5_200;
const SEED = Number(process.env.GENERATED_BODIES_SEED ?? 20260807);

let gw: TestGateway;
let server: Server;
let origin: string;
let doc: ContractDocument;

beforeAll(async () => {
  const merchants = testMerchants();
  const account = merchants.merchants[0]!.accounts[0]! as unknown as Record<string, unknown>;
  // every currency of the document enabled, with a rate and a deposit: a body is refused for what it says,
  // not for the gateway's or the account's settings
  const deposit = Object.fromEntries(ISO_4217.map((c) => [c, 10_000_000_000]));
  Object.assign(account, { currencies: [], checkout_rate_per_minute: 0, deposit_balance: deposit });
  const rates = join(mkdtempSync(join(tmpdir(), 'generated-bodies-')), 'rates.json');
  writeFileSync(
    rates,
    JSON.stringify({ base: 'USD', rates: Object.fromEntries(ISO_4217.filter((c) => c !== 'USD').map((c) => [c, '1.00'])) }),
  );
  gw = makeGateway({
    name: 'generated-bodies',
    clock: new ManualClock(Date.now()),
    merchants,
    env: { AUTH_FAILURES_PER_MINUTE: '0', LOG_LEVEL: 'warn', FX_RATES_FILE: rates },
  });
  server = createGatewayServer(gw.app, gw.config.serverLimits);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // the document as the gateway serves it: the bodies come from what a client reads
  doc = new ContractDocument((await (await fetch(`${origin}/openapi.json`)).json()) as OpenApiDocument);
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await gw?.close();
});

interface SignedCall {
  path: string;
  operation: OperationObject;
  request: JsonSchema;
}

function signedCalls(): SignedCall[] {
  return Object.entries(doc.doc.paths).flatMap(([path, ops]) => {
    const op = ops.post;
    if (!path.startsWith('/v1/') || !op?.['x-request-signature']) return [];
    return [{ path, operation: op, request: op.requestBody!.content['application/json']!.schema! }];
  });
}

/** The values x-request-signature names, in order: `orders[].transaction_id…` stands for every such member. */
function signedValues(fields: readonly string[], body: Record<string, unknown>): unknown[] {
  return fields.flatMap((f) => {
    const each = /^(\w+)\[\]\.(\w+)…$/.exec(f);
    if (!each) return [body[f]];
    const list = body[each[1]!];
    return Array.isArray(list)
      ? list.map((o) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[each[2]!] : undefined))
      : [];
  });
}

interface Probe {
  /** the call's path and request schema's name: kept short, a failing probe is printed */
  path: string;
  schema: string;
  body: Record<string, unknown>;
  type: 'application/json' | 'application/x-www-form-urlencoded';
  idempotencyKey?: string;
}

function probes(calls: SignedCall[]): fc.Arbitrary<Probe> {
  const keyParam = (op: OperationObject) =>
    ((op.parameters as { name: string; schema: JsonSchema }[] | undefined) ?? []).find((p) => p.name === 'Idempotency-Key')?.schema;
  return fc.oneof(
    ...calls.map((call) =>
      fc
        .record({
          body: arbitraryOf(call.request, doc) as fc.Arbitrary<Record<string, unknown>>,
          ours: fc.nat(9),
          type: fc.constantFrom('application/json' as const, 'application/x-www-form-urlencoded' as const),
          key: fc.option(arbitraryOf(keyParam(call.operation), doc) as fc.Arbitrary<string>, { freq: 4 }),
        })
        .map(({ body, ours, type, key }): Probe => {
          // most bodies name the test account, so they pass authentication and reach the schemas and the core
          const b = ours > 0 ? { ...body, merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID } : body;
          b.encryption_data = sign(signedValues(call.operation['x-request-signature']!, b), SIGN_KEY);
          return { path: call.path, schema: schemaName(call), body: b, type, ...(key === null ? {} : { idempotencyKey: key }) };
        }),
    ),
  );
}

describe('when bodies generated from the document’s request schemas are sent, signed, to every signed /v1 call', () => {
  it(`then none of ${BODIES} answers is a 5xx and every answer fits the document`, { timeout: 180_000 }, async () => {
    const calls = signedCalls();
    expect(calls.map((c) => c.path)).toEqual(expect.arrayContaining(['/v1/authorise', '/v1/payout', '/v1/capture', '/v1/optimise']));
    const statuses = new Map<string, number>();
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(probes(calls), async (probe) => {
        const fits = doc.validator(`#/components/schemas/${probe.schema}`);
        expect(fits(probe.body) ? [] : fits.errors, 'the generator keeps to the schema').toEqual([]);
        const res = await fetch(origin + probe.path, {
          method: 'POST',
          headers: { 'content-type': probe.type, ...(probe.idempotencyKey ? { 'idempotency-key': probe.idempotencyKey } : {}) },
          body: JSON.stringify(probe.body),
        });
        const body = Buffer.from(await res.arrayBuffer());
        sent++;
        const tally = `${probe.path} ${res.status}`;
        statuses.set(tally, (statuses.get(tally) ?? 0) + 1);
        // a test clock call naming a clock that does not exist is refused as a 400 naming the field (docs/test-clocks.md)
        if (res.status === 400 && body.toString().includes('names no test clock')) statuses.set(`${probe.path} unknown`, 1);
        expect(res.status, `${probe.path}: ${body.toString().slice(0, 300)}`).toBeLessThan(500);
        const problems = answerProblems(
          { method: 'POST', path: probe.path, status: res.status, headers: Object.fromEntries(res.headers), body },
          doc,
        );
        expect(problems).toEqual([]);
      }),
      { numRuns: BODIES, seed: SEED, endOnFailure: true },
    );
    expect(sent).toBeGreaterThanOrEqual(5_000);
    console.info(`generated bodies: ${sent} sent; answers by call and status: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    // the bodies reach past the signature and the schema: every call processes some of them (a look-up of
    // generated identifiers finds nothing: its 404 counts)
    for (const call of calls) {
      const processed = [200, 404, 'unknown'].reduce((n: number, status) => n + (statuses.get(`${call.path} ${status}`) ?? 0), 0);
      expect(processed, `${call.path} processed a generated body`).toBeGreaterThan(0);
    }
  });
});

const schemaName = (call: SignedCall): string => String(call.request.$ref).replace('#/components/schemas/', '');

describe('when a body the generated run found is sent: a card with a token_id and without its expiry', () => {
  it('then the refusal names the missing field (before, the card was charged without it: a 500)', async () => {
    for (const missing of ['expiration_month', 'expiration_year']) {
      const body = authoriseBody({ token_id: 'tok_unknown', [missing]: undefined });
      const res = await fetch(`${origin}/v1/authorise`, {
        method: 'POST',
        headers: { accept: 'application/json' },
        body: JSON.stringify(body),
      });
      expect([res.status, await res.json()]).toEqual([
        400,
        expect.objectContaining({ code: 'INVALID_FIELD', field: missing, message: `${missing}: is required with card` }),
      ]);
    }
  });
});
