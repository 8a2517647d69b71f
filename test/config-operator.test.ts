import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadConfig } from '../src/config.js';
import { defaultOperatorName } from '../src/operator-branding.js';

// OPERATOR_NAME and OPERATOR_LOGO_FILE (docs/configuration.md): who runs the hosted pages, named on their trust line.
const dir = mkdtempSync(join(tmpdir(), 'gw-operator-'));
const file = (name: string, body: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
};

describe('the operator named on the hosted pages', () => {
  it('when OPERATOR_NAME is unset, then the name is the base address host without its port, or the product name for a local address', () => {
    expect(defaultOperatorName('https://pay.example.com:8443')).toBe('pay.example.com');
    expect(defaultOperatorName('http://localhost:9501')).toBe('Payment gateway');
    expect(defaultOperatorName('http://127.0.0.1:8080')).toBe('Payment gateway');
    expect(defaultOperatorName('http://[::1]:8080')).toBe('Payment gateway');
    expect(defaultOperatorName('http://shop.localhost:8080')).toBe('Payment gateway');
    expect(loadConfig({ PORT: '9501' }).operatorName).toBe('Payment gateway');
    expect(loadConfig({ OPERATOR_NAME: 'Example Payments Ltd' }).operatorName).toBe('Example Payments Ltd');
  });

  it('when OPERATOR_LOGO_FILE names an image, then it is read at start with its type', () => {
    const config = loadConfig({ OPERATOR_LOGO_FILE: file('logo.SVG', '<svg xmlns="http://www.w3.org/2000/svg"/>') });
    expect(config.operatorLogo?.ext).toBe('svg');
    expect(config.operatorLogo?.body.toString()).toContain('<svg');
    expect(loadConfig({}).operatorLogo).toBeUndefined();
  });

  it('when OPERATOR_LOGO_FILE is not a usable image, then the start stops with plain words naming the setting', () => {
    expect(() => loadConfig({ OPERATOR_LOGO_FILE: file('logo.gif', 'GIF89a') })).toThrowError(
      /^OPERATOR_LOGO_FILE: must be a file ending in \.png, \.jpg, \.jpeg, \.webp or \.svg \(it is ".*logo\.gif"\)$/,
    );
    expect(() => loadConfig({ OPERATOR_LOGO_FILE: join(dir, 'missing.png') })).toThrowError(
      /^OPERATOR_LOGO_FILE: cannot read .*missing\.png: no such file$/,
    );
    expect(() => loadConfig({ OPERATOR_LOGO_FILE: file('empty.png', '') })).toThrowError(/^OPERATOR_LOGO_FILE: .*empty\.png is empty$/);
    expect(() => loadConfig({ OPERATOR_LOGO_FILE: file('big.png', Buffer.alloc(256 * 1024 + 1)) })).toThrowError(
      /^OPERATOR_LOGO_FILE: .*big\.png is over 256 KB; use a smaller image$/,
    );
  });
});
