import { describe, expect, it } from 'vitest';
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { CardVault, type VaultRecord } from '../../../src/core/records/vault.js';
import type { CardSummary } from '../../../src/core/records/payment.js';

const PAN = '4242424242424242';
const SUMMARY: CardSummary = { masked: '424242***4242', bin: '424242', last4: '4242', brand: 'visa', exp_month: '12', exp_year: '2034' };
const BINDING = { token: 'tok_1', merchantId: '1000001' };

/** A vault record as the gateway keeps it. */
function recordOf(vault: CardVault, token = BINDING.token, merchantId = BINDING.merchantId): VaultRecord {
  return vault.record(token, merchantId, '1000001001', PAN, SUMMARY, 0);
}

/** A card sealed as the gateway sealed them before key ids: base64(iv + tag + ciphertext), the raw key, no additional data. */
function legacySeal(key: Buffer, pan: string, tagBytes = 16): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(pan, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag().subarray(0, tagBytes), ct]).toString('base64');
}

describe('the card vault (docs/security.md#card-data)', () => {
  const vault = new CardVault(randomBytes(32));

  it('when a number is sealed, then the sealed text names its key, does not hold the number and opens back to it', () => {
    const rec = recordOf(vault);
    expect(rec.sealed).toMatch(/^v2\.k0\.[A-Za-z0-9+/=]+$/);
    expect(rec.sealed).not.toContain(PAN);
    expect(Buffer.from(rec.sealed.split('.')[2]!, 'base64').toString('latin1')).not.toContain('4242');
    expect(vault.open(rec)).toBe(PAN);
  });

  it('when the same number is sealed twice, then the two texts differ (a fresh nonce each time)', () => {
    expect(vault.seal(PAN, BINDING)).not.toBe(vault.seal(PAN, BINDING));
  });

  it('when a sealed text is altered, or opened with another key, then it does not open', () => {
    const rec = recordOf(vault);
    const raw = Buffer.from(rec.sealed.split('.')[2]!, 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => vault.open({ ...rec, sealed: `v2.k0.${raw.toString('base64')}` })).toThrow();
    expect(() => new CardVault(randomBytes(32)).open(rec)).toThrow();
  });

  it('when a sealed text is moved to another token or another merchant, then it does not open (both are bound as additional data)', () => {
    const rec = recordOf(vault);
    expect(() => vault.open({ ...rec, token: 'tok_2' })).toThrow();
    expect(() => vault.open({ ...rec, merchant_id: '1000002' })).toThrow();
    expect(vault.open(recordOf(vault, 'tok_2', '1000002'))).toBe(PAN);
  });

  it('when the tag is cut short, then the text is refused: the tag length is fixed at 16 bytes', () => {
    const key = randomBytes(32);
    const short = new CardVault(key);
    // an empty ciphertext with its true tag cut to 4 bytes: GCM would check only those 4 bytes without a fixed length
    expect(() => short.open({ token: 't', merchant_id: 'm', sealed: legacySeal(key, '', 4) })).toThrow(/truncated/);
    const v2 = Buffer.from(recordOf(short).sealed.split('.')[2]!, 'base64');
    expect(() =>
      short.open({ token: BINDING.token, merchant_id: BINDING.merchantId, sealed: `v2.k0.${v2.subarray(0, 20).toString('base64')}` }),
    ).toThrow(/truncated/);
  });

  it('when a key is not 32 bytes, or key ids are bad or repeated, then the vault refuses them', () => {
    expect(() => new CardVault(randomBytes(16))).toThrow(/32 bytes/);
    expect(() => new CardVault([])).toThrow(/at least one key/);
    expect(() => new CardVault([{ id: 'a.b', key: randomBytes(32) }])).toThrow(/key id/);
    expect(
      () =>
        new CardVault([
          { id: 'k1', key: randomBytes(32) },
          { id: 'k1', key: randomBytes(32) },
        ]),
    ).toThrow(/twice/);
  });

  it('when requests are fingerprinted, then the fingerprint is keyed: another key gives another value', () => {
    const text = '{"card":"4242424242424242"}';
    expect(vault.fingerprint(text)).toBe(vault.fingerprint(text));
    expect(vault.fingerprint(text)).not.toBe(new CardVault(randomBytes(32)).fingerprint(text));
    expect(vault.fingerprint(text)).not.toContain('4242');
  });

  it('when a master key is used, then encryption and fingerprints each use their own subkey, never the master itself', () => {
    const master = randomBytes(32);
    const v = new CardVault(master);
    const text = '{"order_no":"A-1"}';
    expect(v.fingerprint(text)).not.toBe(createHmac('sha256', master).update(text).digest('base64url'));
    // the v2 body does not open under the raw master key (it would if the master encrypted directly)
    const body = recordOf(v).sealed.split('.')[2]!;
    expect(() => v.open({ token: BINDING.token, merchant_id: BINDING.merchantId, sealed: body })).toThrow();
  });
});

describe('vault key rotation (VAULT_KEYS)', () => {
  const k1 = { id: 'k1', key: randomBytes(32) };
  const k2 = { id: 'k2', key: randomBytes(32) };
  const k3 = { id: 'k3', key: randomBytes(32) };

  it('when a newer key is added, then it seals, every listed key opens, and a vault without the newer key names it', () => {
    const before = new CardVault([k1]);
    const after = new CardVault([k2, k1]);
    const old = recordOf(before);
    const fresh = recordOf(after);
    expect(fresh.sealed).toMatch(/^v2\.k2\./);
    expect(after.open(old)).toBe(PAN);
    expect(after.open(fresh)).toBe(PAN);
    expect(new CardVault([k3, k2, k1]).open(fresh)).toBe(PAN);
    expect(() => before.open(fresh)).toThrow(/vault key "k2", which is not configured/);
  });

  it('when keys rotate, then fingerprints stay the same: they are keyed by the oldest listed key', () => {
    const text = '{"order_no":"A-1","amount":"10.00"}';
    const f = new CardVault([k1]).fingerprint(text);
    expect(new CardVault([k2, k1]).fingerprint(text)).toBe(f);
    expect(new CardVault([k3, k2, k1]).fingerprint(text)).toBe(f);
    expect(new CardVault([k2]).fingerprint(text)).not.toBe(f);
  });

  it('when VAULT_KEY was the only key, then its id is k0 and a VAULT_KEYS list holding k0 opens its cards', () => {
    const single = new CardVault(k1.key);
    const rec = recordOf(single);
    expect(rec.sealed).toMatch(/^v2\.k0\./);
    const rotated = new CardVault([k2, { id: 'k0', key: k1.key }]);
    expect(rotated.open(rec)).toBe(PAN);
    expect(rotated.fingerprint('x')).toBe(single.fingerprint('x'));
  });

  it('when a card was sealed before key ids (no id, nothing bound), then it still opens with whichever listed key sealed it', () => {
    const legacy = { token: 'tok_old', merchant_id: '1000001', sealed: legacySeal(k1.key, PAN) };
    expect(new CardVault(k1.key).open(legacy)).toBe(PAN);
    expect(new CardVault([k3, k2, k1]).open(legacy)).toBe(PAN);
    expect(() => new CardVault([k3, k2]).open(legacy)).toThrow();
    const tampered = Buffer.from(legacy.sealed, 'base64');
    tampered[tampered.length - 1]! ^= 1;
    expect(() => new CardVault(k1.key).open({ ...legacy, sealed: tampered.toString('base64') })).toThrow();
  });

  it('when a sealed text has an unknown format, then it does not open', () => {
    expect(() => new CardVault([k1]).open({ token: 't', merchant_id: 'm', sealed: 'v3.k1.AAAA' })).toThrow(/unknown format/);
  });
});
