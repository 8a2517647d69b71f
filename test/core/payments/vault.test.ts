import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { CardVault } from '../../../src/core/payments/vault.js';

describe('the card vault (DESIGN section 9)', () => {
  const vault = new CardVault(randomBytes(32));

  it('when a number is sealed, then the sealed text does not hold it and opens back to it', () => {
    const sealed = vault.seal('4242424242424242');
    expect(sealed).not.toContain('4242424242424242');
    expect(Buffer.from(sealed, 'base64').toString('latin1')).not.toContain('4242');
    expect(vault.open(sealed)).toBe('4242424242424242');
  });

  it('when the same number is sealed twice, then the two texts differ (a fresh nonce each time)', () => {
    expect(vault.seal('4242424242424242')).not.toBe(vault.seal('4242424242424242'));
  });

  it('when a sealed text is altered, or opened with another key, then it does not open', () => {
    const sealed = Buffer.from(vault.seal('4242424242424242'), 'base64');
    sealed[sealed.length - 1]! ^= 1;
    expect(() => vault.open(sealed.toString('base64'))).toThrow();
    expect(() => new CardVault(randomBytes(32)).open(vault.seal('4242424242424242'))).toThrow();
  });

  it('when a key is not 32 bytes, then the vault refuses it', () => {
    expect(() => new CardVault(randomBytes(16))).toThrow(/32 bytes/);
  });

  it('when requests are fingerprinted, then the fingerprint is keyed: another key gives another value', () => {
    const text = '{"card":"4242424242424242"}';
    expect(vault.fingerprint(text)).toBe(vault.fingerprint(text));
    expect(vault.fingerprint(text)).not.toBe(new CardVault(randomBytes(32)).fingerprint(text));
    expect(vault.fingerprint(text)).not.toContain('4242');
  });
});
