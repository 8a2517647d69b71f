import { isIPv4, isIPv6 } from 'node:net';

/**
 * The caller-IP check of the query calls: an account's allowed_ips lists single addresses and CIDR blocks,
 * IPv4 or IPv6. Every address is compared as 128 bits, IPv4 as its IPv4-mapped IPv6 form, so `127.0.0.1`
 * and `::ffff:127.0.0.1` are the same caller.
 */
function v4Bits(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** 128-bit value of an address, or undefined when it is not one. */
export function addressBits(raw: string): bigint | undefined {
  const ip = raw
    .trim()
    .replace(/^\[|\]$/g, '')
    .split('%')[0]!;
  if (isIPv4(ip)) return (0xffffn << 32n) | v4Bits(ip);
  if (!isIPv6(ip)) return undefined;
  let text = ip;
  let tail: bigint[] = [];
  const v4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const bits = v4Bits(v4[2]!);
    tail = [bits >> 16n, bits & 0xffffn];
    text = v4[1]!.endsWith('::') ? v4[1]! : v4[1]!.slice(0, -1);
  }
  const [left, right] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((h) => BigInt(parseInt(h, 16))) : []);
  const head = part(left);
  const rest = [...part(right), ...tail];
  const zeros = right === undefined ? [] : Array.from({ length: 8 - head.length - rest.length }, () => 0n);
  const groups = [...head, ...zeros, ...rest];
  if (groups.length !== 8) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

/** True when `ip` is one of the rules (address or CIDR block). */
export function ipAllowed(ip: string | undefined, rules: readonly string[]): boolean {
  if (!ip) return false;
  const caller = addressBits(ip);
  if (caller === undefined) return false;
  for (const rule of rules) {
    const [addr, prefixText] = rule.split('/') as [string, string | undefined];
    const base = addressBits(addr);
    if (base === undefined) continue;
    let prefix = prefixText === undefined ? 128 : Number(prefixText);
    if (prefixText !== undefined && isIPv4(addr)) prefix += 96;
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > 128) continue;
    const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(128 - prefix);
    if ((caller & mask) === (base & mask)) return true;
  }
  return false;
}
