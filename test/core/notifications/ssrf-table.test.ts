import { describe, expect, it } from 'vitest';
import { checkNotifyTarget } from '../../../src/core/notifications/target.js';

/** No host name resolves: every form below is an address literal, checked without DNS. */
const noDns = async (): Promise<string[]> => [];
const check = (url: string) => checkNotifyTarget(url, false, noDns);

/** Address forms that reach loopback, private, link-local, metadata or reserved networks (issue 12, finding 7). */
const REFUSED = [
  'http://127.0.0.1/',
  'http://127.255.255.254/',
  'http://2130706433/', // 127.0.0.1 in decimal
  'http://0x7f000001/', // in hex
  'http://0177.0.0.1/', // in octal
  'http://127.1/', // short form
  'http://0.0.0.0/',
  'http://10.0.0.1/',
  'http://172.16.5.4/',
  'http://192.168.0.1/',
  'http://169.254.169.254/latest/meta-data/', // cloud metadata
  'http://100.64.0.1/',
  'http://198.18.0.1/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
  'http://[::1]/',
  'http://[::]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://[::127.0.0.1]/', // IPv4-compatible
  'http://[::7f00:1]/',
  'http://[::10.0.0.1]/',
  'http://[::ffff:127.0.0.1]/', // IPv4-mapped
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:0:127.0.0.1]/', // SIIT
  'http://[::ffff:0:a00:1]/',
  'http://[64:ff9b::127.0.0.1]/', // NAT64
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[64:ff9b:1::a00:1]/', // local-use NAT64
  'http://[2002:7f00:1::1]/', // 6to4 of 127.0.0.1
  'http://[2002:a00:1::]/', // 6to4 of 10.0.0.1
  'http://[2002:a9fe:a9fe::1]/', // 6to4 of the metadata address
  'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', // Teredo, client 127.0.0.1
  'http://[2001:0:a00:1::1]/', // Teredo, server 10.0.0.1
  'http://[fe80::1]/',
  'http://[fec0::1]/',
  'http://[fd12:3456::1]/',
  'http://[fc00::1]/',
  'http://[ff02::1]/',
  'http://[2001:db8::1]/',
  'http://[100::1]/',
  'http://localhost/',
  'http://api.localhost/',
  'http://printer.local/',
  'http://metadata.google.internal/',
  'http://user:secret@93.184.215.14/',
  'ftp://93.184.215.14/',
  'file:///etc/passwd',
  'gopher://93.184.215.14:70/',
];

/** Public addresses, including public IPv4 carried inside IPv6, still pass. */
const ALLOWED = [
  'http://93.184.215.14/',
  'https://8.8.8.8/',
  'http://[2606:4700:4700::1111]/',
  'http://[::ffff:8.8.8.8]/',
  'http://[64:ff9b::808:808]/',
  'http://[2002:808:808::1]/',
  'http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/', // Teredo, server and client public
];

describe('when notify_url address forms are checked (SSRF table)', () => {
  it('then the table covers at least 40 forms', () => {
    expect(REFUSED.length + ALLOWED.length).toBeGreaterThanOrEqual(40);
  });

  it.each(REFUSED)('then %s is refused', async (url) => {
    expect((await check(url)).ok).toBe(false);
  });

  it.each(ALLOWED)('then %s is allowed', async (url) => {
    expect(await check(url)).toEqual({ ok: true });
  });
});
