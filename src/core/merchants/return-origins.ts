import type { Account } from './directory.js';

function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The origins the shopper may be sent back to: the account's website, storefront_domains and return_domains. */
export function returnOrigins(account: Pick<Account, 'website' | 'storefront_domains' | 'return_domains'>): Set<string> {
  const all = [account.website, ...account.storefront_domains, ...account.return_domains];
  return new Set(all.flatMap((u) => originOf(u) ?? []));
}

/**
 * True when a return or cancel address is on one of the account's own origins. Anything else would make
 * the gateway an open redirect: a signed result page that sends the shopper to a host nobody vetted.
 */
export function returnUrlAllowed(account: Pick<Account, 'website' | 'storefront_domains' | 'return_domains'>, url: string): boolean {
  const origin = originOf(url);
  return origin !== undefined && returnOrigins(account).has(origin);
}
