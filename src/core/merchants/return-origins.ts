import type { Account } from '../records/directory.js';

function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

type OriginFields = Pick<Account, 'website' | 'storefront_domains' | 'return_domains'>;

/** Each account's origins with the values they were read from (a changed value is read again). */
const known = new WeakMap<OriginFields, { from: OriginFields; origins: ReadonlySet<string> }>();

/**
 * The origins the shopper may be sent back to: the account's website, storefront_domains and return_domains.
 * Parsed once per account (every checkout and direct return_url asks): the URL parser took about 1 % of a
 * checkout's CPU.
 */
export function returnOrigins(account: OriginFields): ReadonlySet<string> {
  const seen = known.get(account);
  const { website, storefront_domains, return_domains } = account;
  if (
    seen &&
    seen.from.website === website &&
    seen.from.storefront_domains === storefront_domains &&
    seen.from.return_domains === return_domains
  )
    return seen.origins;
  const all = [website, ...storefront_domains, ...return_domains];
  const origins = new Set(all.flatMap((u) => originOf(u) ?? []));
  known.set(account, { from: { website, storefront_domains, return_domains }, origins });
  return origins;
}

/**
 * True when a return or cancel address is on one of the account's own origins. Anything else would make
 * the gateway an open redirect: a signed result page that sends the shopper to a host nobody vetted.
 */
export function returnUrlAllowed(account: Pick<Account, 'website' | 'storefront_domains' | 'return_domains'>, url: string): boolean {
  const origin = originOf(url);
  return origin !== undefined && returnOrigins(account).has(origin);
}
