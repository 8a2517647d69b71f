import { afterEach, describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock, type IdGenerator } from '../../src/core/kernel/clock.js';
import { canonicalJson, requestFingerprint } from '../../src/core/kernel/fingerprint.js';
import { MemoryKv } from '../../src/store/memory-kv.js';
import { KvGatewayStore } from '../../src/store/gateway-store.js';
import { IDEMPOTENCY_TTL_MS } from '../../src/core/idempotency/idempotency-key.js';
import { authoriseBody, makeGateway, MERCHANT_ID, type TestGateway } from '../support/gateway.js';

// docs/security.md#card-data / issue 37 point 1: nothing kept derives from the security code or the expiry; request fingerprints
// (of a payment, of an Idempotency-Key) see the card only as its masked number.

const open: TestGateway[] = [];
afterEach(async () => {
  for (const gw of open.splice(0)) await gw.close();
});

/** Identifiers that are the same in every gateway built with them: two runs differ only by what they were sent. */
function countingIds(clock: ManualClock): IdGenerator {
  let n = 0;
  const next = () => String(++n).padStart(8, '0');
  const stamp = () => new Date(clock.now()).toISOString().replace(/\D/g, '').slice(0, 14);
  return {
    transactionId: () => `${stamp()}T${next().slice(1)}`,
    token: () => `tok_${next()}`,
    notifyId: () => `ntf_${stamp()}${next()}`,
    recurringId: () => `RC${stamp().slice(0, 8)}T${stamp().slice(8)}X${next().slice(3)}`,
    opaque: (prefix) => `${prefix}_${next()}`,
  };
}

function gateway(name: string, clock = new ManualClock(), kv = new MemoryKv()): TestGateway {
  const gw = makeGateway({ name: `security-code-${name}`, clock, ids: countingIds(clock), store: new KvGatewayStore(kv) });
  open.push(gw);
  return gw;
}

const authorise = (gw: TestGateway, body: Record<string, unknown>, key?: string) => {
  const r = request(gw.app).post('/v1/authorise').type('form').set('Accept', 'application/json');
  if (key !== undefined) r.set('Idempotency-Key', key);
  return r.send(JSON.stringify(body));
};

const ORDER = { order_no: 'ORD-CVV-1', notify_url: 'http://127.0.0.1:9/notify' };

describe('when only the security code or the expiry of a payment request changes', () => {
  it('then its request fingerprint is unchanged, and it sees the card only as the masked number', () => {
    const gw = gateway('fingerprint');
    const body = authoriseBody(ORDER);
    const fp = requestFingerprint(gw.deps, body);
    expect(requestFingerprint(gw.deps, authoriseBody({ ...ORDER, security_code: '123' }))).toBe(fp);
    expect(
      requestFingerprint(gw.deps, authoriseBody({ ...ORDER, security_code: '1234', expiration_month: '01', expiration_year: '2031' })),
    ).toBe(fp);
    // the card enters as what is stored anyway: first 6 and last 4
    expect(requestFingerprint(gw.deps, { ...body, card: '4242420000004242' })).toBe(fp);
    const { card, security_code: _c, expiration_month: _m, expiration_year: _y, encryption_data: _s, ...rest } = body;
    expect(fp).toBe(
      gw.deps.vault.fingerprint(`${canonicalJson({ ...rest, card: `${String(card).slice(0, 6)}***${String(card).slice(-4)}` })}`),
    );
    expect(requestFingerprint(gw.deps, authoriseBody({ ...ORDER, card: '4000056655665556' }))).not.toBe(fp);
    // a body deeper than the recursive writer goes (the explicit stack's path) is seen the same way
    let deep: unknown = 'end';
    for (let i = 0; i < 80; i++) deep = { [`d${i}`]: deep };
    const deepFp = requestFingerprint(gw.deps, { ...body, deep });
    expect(requestFingerprint(gw.deps, { ...body, deep, security_code: '999', expiration_year: '2040' })).toBe(deepFp);
    expect(deepFp).toBe(gw.deps.vault.fingerprint(canonicalJson({ ...rest, deep, card: '424242***4242' })));
  });

  it('then the same order sent again answers the original payment, with or without an Idempotency-Key', async () => {
    const gw = gateway('replay');
    const first = await authorise(gw, authoriseBody(ORDER));
    expect(first.status).toBe(200);
    const again = await authorise(gw, authoriseBody({ ...ORDER, security_code: '123' }));
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);

    const keyed = { ...ORDER, order_no: 'ORD-CVV-2' };
    const one = await authorise(gw, authoriseBody(keyed), 'pay-cvv');
    const two = await authorise(gw, authoriseBody({ ...keyed, security_code: '4321', expiration_month: '11' }), 'pay-cvv');
    expect(two.status).toBe(200);
    expect(two.headers['idempotent-replayed']).toBe('true');
    expect(two.text).toBe(one.text);
  });

  it('then a payment and a key kept before fingerprints left the security code out still answer the same request', async () => {
    const gw = gateway('former');
    const body = authoriseBody({ ...ORDER, order_no: 'ORD-CVV-3' });
    const first = await authorise(gw, body, 'pay-former');
    expect(first.status).toBe(200);
    // as a gateway before this change kept them: HMACs over the whole body
    const { encryption_data: _s, ...unsigned } = body;
    const paymentId = /<transaction_id>([^<]+)</.exec(first.text)![1]!;
    const p = (await gw.deps.store.getPayment(MERCHANT_ID, paymentId))!;
    const former = gw.deps.vault.fingerprint(canonicalJson(unsigned));
    expect(
      await gw.deps.store.commit({ merchantId: MERCHANT_ID, payments: [{ next: { ...p, fingerprint: former }, expected: p.version }] }),
    ).toBe(true);
    const rec = (await gw.deps.store.getIdempotency(MERCHANT_ID, String(body.account_id), 'pay-former'))!;
    const formerHash = gw.deps.vault.fingerprint(`/v1/authorise\n${canonicalJson(body)}`);
    expect(
      await gw.deps.store.commit({
        merchantId: MERCHANT_ID,
        idempotency: [
          {
            accountId: String(body.account_id),
            key: 'pay-former',
            next: { ...rec, request_hash: formerHash },
            expected: rec.version,
            ttlMs: IDEMPOTENCY_TTL_MS,
          },
        ],
      }),
    ).toBe(true);

    expect((await authorise(gw, body)).text).toBe(first.text);
    expect((await authorise(gw, body, 'pay-former')).text).toBe(first.text);
    // what those records covered still counts for them: another security code is another request
    expect((await authorise(gw, authoriseBody({ ...ORDER, order_no: 'ORD-CVV-3', security_code: '123' }))).status).toBe(409);
  });
});

/**
 * Everything the memory store holds (records, sorted sets, hashes) by key, as text. A card sealed in the vault
 * is its AES-GCM text under a fresh nonce, different at each sealing: it stands as `<sealed>` (what it seals
 * is the card number alone, test/core/payments/vault.test.ts).
 */
function contents(kv: MemoryKv): Record<string, string> {
  const inside = kv as unknown as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [name, map] of Object.entries(inside)) {
    if (!(map instanceof Map)) continue;
    for (const [key, value] of map as Map<string, unknown>) {
      const kept = value instanceof Map ? Object.fromEntries(value) : { ...(value as object), expiresAt: undefined };
      out[`${name} ${key}`] = JSON.stringify(kept).replace(/\\"sealed\\":\\"[^\\"]+\\"/g, '<sealed>');
    }
  }
  return out;
}

describe('when two gateways serve the same calls, one payment request differing only in its security code', () => {
  it('then every stored key and value is the same in both', async () => {
    const runs = await Promise.all(
      ['737', '123'].map(async (code) => {
        const kv = new MemoryKv();
        const gw = gateway(`scan-${code}`, new ManualClock(), kv);
        const body = authoriseBody({ ...ORDER, security_code: code });
        const paid = await authorise(gw, body, 'scan-key');
        expect(paid.status).toBe(200);
        // a strict merchant's retry, and a direct payment that keeps the card for later payments
        await authorise(gw, body, 'scan-key');
        expect(
          (await authorise(gw, authoriseBody({ ...ORDER, order_no: 'ORD-CVV-T', token_flag: 'YES', security_code: code }))).status,
        ).toBe(200);
        return contents(kv);
      }),
    );
    const [a, b] = runs as [Record<string, string>, Record<string, string>];
    expect(Object.keys(a).length).toBeGreaterThan(3);
    expect(Object.values(a).join('\n')).toContain('<sealed>');
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    const differing = Object.keys(a).filter((k) => a[k] !== b[k]);
    expect(differing.map((k) => [k, a[k], b[k]])).toEqual([]);
  });
});
