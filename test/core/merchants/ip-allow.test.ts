import { describe, expect, it } from 'vitest';
import { ipAllowed } from '../../../src/core/merchants/ip-allow.js';

describe('the caller-address allow list', () => {
  it('when the list names a single IPv4 address, then it matches that address and its IPv4-mapped IPv6 form only', () => {
    expect(ipAllowed('127.0.0.1', ['127.0.0.1'])).toBe(true);
    expect(ipAllowed('::ffff:127.0.0.1', ['127.0.0.1'])).toBe(true);
    expect(ipAllowed('::ffff:7f00:1', ['127.0.0.1'])).toBe(true);
    expect(ipAllowed('127.0.0.2', ['127.0.0.1'])).toBe(false);
    expect(ipAllowed('::1', ['127.0.0.1'])).toBe(false);
  });

  it('when the list holds CIDR blocks, then addresses inside match and the ones outside do not', () => {
    expect(ipAllowed('10.255.0.1', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('::ffff:10.1.1.1', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('11.0.0.1', ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('192.168.1.77', ['192.168.1.64/26'])).toBe(true);
    expect(ipAllowed('192.168.1.128', ['192.168.1.64/26'])).toBe(false);
    expect(ipAllowed('2001:db8:ffff::1', ['2001:db8::/32'])).toBe(true);
    expect(ipAllowed('2001:db9::1', ['2001:db8::/32'])).toBe(false);
    expect(ipAllowed('8.8.8.8', ['0.0.0.0/0'])).toBe(true);
    expect(ipAllowed('2001:db8::1', ['0.0.0.0/0'])).toBe(false);
  });

  it('when IPv6 addresses are written in different forms, then the same address matches', () => {
    expect(ipAllowed('2001:0db8:0000:0000:0000:0000:0000:0001', ['2001:db8::1'])).toBe(true);
    expect(ipAllowed('::1', ['0:0:0:0:0:0:0:1'])).toBe(true);
    expect(ipAllowed('fe80::1%eth0', ['fe80::/10'])).toBe(true);
  });

  it('when the caller address is missing or malformed, or the list is empty, then nothing matches', () => {
    expect(ipAllowed(undefined, ['0.0.0.0/0'])).toBe(false);
    expect(ipAllowed('not-an-ip', ['0.0.0.0/0'])).toBe(false);
    expect(ipAllowed('999.1.1.1', ['0.0.0.0/0'])).toBe(false);
    expect(ipAllowed('127.0.0.1', [])).toBe(false);
    expect(ipAllowed('127.0.0.1', ['127.0.0.1/99', 'garbage'])).toBe(false);
  });
});
