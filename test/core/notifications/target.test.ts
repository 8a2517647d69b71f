import { describe, expect, it } from 'vitest';
import { checkNotifyTarget, isBlockedAddress } from '../../../src/core/notifications/target.js';

const dns = (table: Record<string, string[]>) => async (host: string) => table[host] ?? [];

describe('when an address is checked as a notification target', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
  ])('then %s is refused', (ip) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '203.0.113.7', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('then %s is allowed', (ip) => {
    expect(isBlockedAddress(ip)).toBe(false);
  });
});

describe('when a notify_url is checked', () => {
  it('then only http and https with a public target pass', async () => {
    const resolve = dns({
      'shop.example': ['93.184.215.14'],
      'rebind.example': ['93.184.215.14', '10.0.0.5'],
      'inner.example': ['192.168.0.10'],
    });
    expect(await checkNotifyTarget('https://shop.example/notify', false, resolve)).toEqual({ ok: true });
    expect(await checkNotifyTarget('http://93.184.215.14:8080/n', false, resolve)).toEqual({ ok: true });
    for (const bad of [
      'ftp://shop.example/',
      'javascript:alert(1)',
      'http://127.0.0.1/',
      'http://[::1]:80/',
      'http://localhost/',
      'http://inner.example/',
      'http://rebind.example/',
      'http://user:pw@shop.example/',
    ]) {
      expect((await checkNotifyTarget(bad, false, resolve)).ok, bad).toBe(false);
    }
  });

  it('then a host that does not resolve is accepted at request time and refused at delivery', async () => {
    const resolve = dns({});
    expect(await checkNotifyTarget('https://later.example/', false, resolve, 'accept')).toEqual({ ok: true });
    expect(await checkNotifyTarget('https://later.example/', false, resolve, 'refuse')).toEqual({
      ok: false,
      reason: 'host name does not resolve',
    });
  });

  it('then NOTIFY_ALLOW_PRIVATE lets loopback through but never another scheme', async () => {
    expect(await checkNotifyTarget('http://127.0.0.1:9/n', true, dns({}))).toEqual({ ok: true });
    expect((await checkNotifyTarget('file:///etc/passwd', true, dns({}))).ok).toBe(false);
  });
});
