import { describe, expect, it } from 'vitest';
import { returnOrigins, returnUrlAllowed } from '../../../src/core/merchants/return-origins.js';

const account = () => ({
  website: 'https://shop.example/path',
  storefront_domains: ['https://store.example:8443', 'not a url', 'ftp://files.example'],
  return_domains: ['http://back.example/'],
});

describe('return origins (core/merchants/return-origins.ts)', () => {
  it("when an address is on the account's website, storefront or return origins, then it is allowed; any other origin is not", () => {
    const a = account();
    expect(returnUrlAllowed(a, 'https://shop.example/thanks?x=1')).toBe(true);
    expect(returnUrlAllowed(a, 'https://store.example:8443/r')).toBe(true);
    expect(returnUrlAllowed(a, 'http://back.example/done')).toBe(true);
    expect(returnUrlAllowed(a, 'https://store.example/r')).toBe(false);
    expect(returnUrlAllowed(a, 'http://shop.example/thanks')).toBe(false);
    expect(returnUrlAllowed(a, 'https://evil.example/')).toBe(false);
    expect(returnUrlAllowed(a, 'ftp://files.example/x')).toBe(false);
    expect(returnUrlAllowed(a, 'not a url')).toBe(false);
    expect([...returnOrigins(a)]).toEqual(['https://shop.example', 'https://store.example:8443', 'http://back.example']);
  });

  it('when an account is asked again, then its origins are not parsed again; when one of its values changes, then they are', () => {
    const a = account();
    const first = returnOrigins(a);
    expect(returnOrigins(a)).toBe(first);
    a.website = 'https://moved.example';
    expect(returnUrlAllowed(a, 'https://moved.example/r')).toBe(true);
    expect(returnUrlAllowed(a, 'https://shop.example/r')).toBe(false);
    a.return_domains = [];
    expect(returnUrlAllowed(a, 'http://back.example/done')).toBe(false);
    a.storefront_domains = ['https://other.example'];
    expect([...returnOrigins(a)]).toEqual(['https://moved.example', 'https://other.example']);
  });
});
