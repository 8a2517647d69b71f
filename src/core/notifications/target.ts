import { isIP } from 'node:net';
import { invalidField } from '../kernel/errors.js';
import type { HostResolver } from '../ports/transport.js';

export type { HostResolver };

/**
 * Which addresses a notification may be sent to. A merchant must not be able to make the gateway POST into
 * its own network (SSRF): loopback, private, link-local, carrier-grade NAT, multicast and reserved ranges are
 * refused unless NOTIFY_ALLOW_PRIVATE is set (tests, local development).
 */
const BLOCKED_V4: readonly [number, number][] = [
  [0x00000000, 8], // 0.0.0.0/8 "this network"
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 carrier-grade NAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local (cloud metadata)
  [0xac100000, 12], // 172.16/12
  [0xc0000000, 24], // 192.0.0/24 IETF protocol assignments
  [0xc0a80000, 16], // 192.168/16
  [0xc6120000, 15], // 198.18/15 benchmarking
  [0xe0000000, 3], // multicast and reserved (224/4, 240/4)
];

function v4Number(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function blockedV4(ip: string): boolean {
  const n = v4Number(ip);
  return BLOCKED_V4.some(([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)));
}

/** Expands an IPv6 text to its eight 16-bit groups. */
function v6Groups(ip: string): number[] {
  let text = ip.toLowerCase().split('%')[0]!;
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail) {
    const n = v4Number(v4Tail[1]!);
    text = text.slice(0, -v4Tail[1]!.length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g || '0', 16));
}

const v4Of = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 addresses an IPv6 address carries, which a packet to it may reach: IPv4-compatible (::a.b.c.d),
 * IPv4-mapped (::ffff:a.b.c.d), SIIT (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96), 6to4 (2002:AABB:CCDD::/16)
 * and Teredo (2001:0::/32: its server, and its client XOR 0xffffffff).
 */
export function embeddedV4(g: readonly number[]): string[] {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && (g[5] === 0 || g[5] === 0xffff)) return [v4Of(g[6]!, g[7]!)]; // compatible, mapped
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return [v4Of(g[6]!, g[7]!)]; // SIIT
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return [v4Of(g[6]!, g[7]!)]; // NAT64 well-known prefix
  if (g[0] === 0x2002) return [v4Of(g[1]!, g[2]!)]; // 6to4
  if (g[0] === 0x2001 && g[1] === 0) return [v4Of(g[2]!, g[3]!), v4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff)]; // Teredo
  return [];
}

function blockedV6(ip: string): boolean {
  const g = v6Groups(ip);
  if (g.length !== 8 || g.some((x) => !Number.isInteger(x) || x < 0 || x > 0xffff)) return true;
  if (g.slice(0, 7).every((x) => x === 0) && (g[7] === 0 || g[7] === 1)) return true; // :: and ::1
  const carried = embeddedV4(g);
  if (carried.length > 0) return carried.some(blockedV4);
  const first = g[0]!;
  if (first === 0x64 && g[1] === 0xff9b) return true; // 64:ff9b:1::/48, local-use NAT64: any network
  if (first === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return true; // 100::/64 discard
  if (first === 0x2001 && g[1] === 0xdb8) return true; // documentation
  if (first === 0x2001 && g[1]! < 0x200) return true; // 2001::/23 IETF protocol assignments (Teredo above)
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xffc0) === 0xfec0 || (first & 0xff00) === 0xff00; // ULA, link-local, site-local, multicast
}

/** True when the address is not a public unicast address. */
export function isBlockedAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return blockedV4(ip);
  if (family === 6) return blockedV6(ip);
  return true;
}

/** The host of a URL without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

export type TargetCheck = { ok: true } | { ok: false; reason: string };

/**
 * How long a notify host's name may take to resolve. Sending a notification: past it the attempt fails, to
 * be retried with back-off like any other, and the worker goes on. Checking a URL a request names: past it the
 * name counts as one that does not resolve now (accepted; every delivery checks it again), so a slow DNS
 * never holds a merchant's request.
 */
export const RESOLVE_TIMEOUT_MS = 5_000;
export const REQUEST_RESOLVE_TIMEOUT_MS = 2_000;

/** The resolver's answer, or undefined when it takes longer than `ms`. */
export function resolveWithin(resolve: HostResolver, hostname: string, ms: number): Promise<string[] | undefined> {
  return new Promise((done, fail) => {
    const timer = setTimeout(() => done(undefined), ms);
    resolve(hostname).then(
      (addresses) => {
        clearTimeout(timer);
        done(addresses);
      },
      (err: unknown) => {
        clearTimeout(timer);
        fail(err);
      },
    );
  });
}

/**
 * Checks a notify_url: http or https, and (unless private targets are allowed) a host that is not, and does
 * not resolve to, a loopback, private or link-local address. A host that does not resolve now is refused too:
 * the gateway could not deliver to it.
 */
export async function checkNotifyTarget(
  raw: string,
  allowPrivate: boolean,
  resolve: HostResolver,
  whenUnresolved: 'accept' | 'refuse' = 'refuse',
): Promise<TargetCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'must be an http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'must be an http or https URL' };
  if (url.username || url.password) return { ok: false, reason: 'must not carry user name or password' };
  if (allowPrivate) return { ok: true };
  const host = urlHost(url);
  if (isIP(host))
    return isBlockedAddress(host) ? { ok: false, reason: 'must not point at a loopback, private or link-local address' } : { ok: true };
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) {
    return { ok: false, reason: 'must not point at a loopback, private or link-local address' };
  }
  const timeoutMs = whenUnresolved === 'accept' ? REQUEST_RESOLVE_TIMEOUT_MS : RESOLVE_TIMEOUT_MS;
  let addresses: string[] | undefined;
  try {
    addresses = await resolveWithin(resolve, host, timeoutMs);
  } catch {
    addresses = [];
  }
  if (addresses === undefined) {
    return whenUnresolved === 'accept' ? { ok: true } : { ok: false, reason: `host name did not resolve within ${timeoutMs / 1000} s` };
  }
  if (addresses.length === 0) return whenUnresolved === 'accept' ? { ok: true } : { ok: false, reason: 'host name does not resolve' };
  if (addresses.some(isBlockedAddress)) return { ok: false, reason: 'must not resolve to a loopback, private or link-local address' };
  return { ok: true };
}

/** The request-time check: a refused notify_url is a 400 naming the field. */
export async function assertNotifyUrl(raw: string, allowPrivate: boolean, resolve: HostResolver, field = 'notify_url'): Promise<void> {
  if (!raw) return;
  const check = await checkNotifyTarget(raw, allowPrivate, resolve, 'accept');
  if (!check.ok) throw invalidField(field, check.reason);
}
