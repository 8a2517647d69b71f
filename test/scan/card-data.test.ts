import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_TEST_CARDS, TEST_SECURITY_CODE } from '../support/cards.js';
import { LOG_DIR, MEMORY_DIR, REDIS_DIR } from '../support/paths.js';
import { keys } from '../../src/store/gateway-store.js';
import { luhnValid } from '../../src/core/kernel/cards.js';

/**
 * Runs after the whole suite (npm test's second step): what the suite left in Redis (append-only files and
 * uncompressed RDB snapshots), in the embedded stores of its gateways (written when each is closed,
 * support/memory-dump.ts) and in the logs must hold no card number in clear and no security code; and
 * together they must hold every kind of record the store keeps, so that no kind escapes the scan.
 */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

const redisFiles = filesUnder(REDIS_DIR).filter((f) => /(\.aof|\.rdb)$/.test(f));
const logFiles = filesUnder(LOG_DIR);
const memoryFiles = filesUnder(MEMORY_DIR);

/**
 * Digit runs that look like a card number: 15 to 19 digits, a card network's first digit, Luhn-valid, and not
 * part of a longer hex text (now and then a SHA-256 signature holds such a digit run by chance).
 */
function cardLikeRuns(text: string): string[] {
  return [...text.matchAll(/(?<![\dA-Fa-f])[3-6]\d{14,18}(?![\dA-Fa-f])/g)].map((m) => m[0]).filter(luhnValid);
}

const SECURITY_CODE_FIELD = /(security_code|cvv2?|cvc2?|csc)["'=:\s\\]{1,8}\d{3,4}(?!\d)/i;

describe('after the test suite, card data is nowhere in stored data or logs', () => {
  it('when the artifacts are listed, then the suite left Redis data and logs to scan', () => {
    expect(redisFiles.filter((f) => f.endsWith('.aof')).length).toBeGreaterThan(3);
    expect(redisFiles.filter((f) => f.endsWith('.rdb')).length).toBeGreaterThan(3);
    expect(logFiles.length).toBeGreaterThan(3);
    const payments = redisFiles.filter((f) => f.endsWith('.aof')).some((f) => readFileSync(f, 'latin1').includes(':pay:'));
    expect(payments).toBe(true);
  });

  it('when the stores’ data is read, then it holds every kind of record the store keeps (each key builder’s keys)', () => {
    const stored = [...redisFiles, ...memoryFiles].map((f) => readFileSync(f, 'latin1')).join('\n');
    // each builder's key with placeholder parts, as a pattern: `gw:\{[^}]*\}:pay:\S+`
    const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const kinds = Object.entries(keys)
      // read, never written: where Idempotency-Key records were kept before key names were hashed
      // and the registry's pub/sub channel: a name announcements go to, nothing is stored under it
      .filter(([name]) => name !== 'formerIdempotency' && name !== 'registryChannel')
      .map(([name, build]) => {
        const sample = (build as (...a: string[]) => string)('MERCHANT', 'ACCOUNT', 'IDENT', 'MORE');
        // a builder may lower-case a part (a payout's request_id)
        const pattern = escape(sample)
          .replace('MERCHANT', '[^}:]+')
          .replace(/ACCOUNT|IDENT|MORE|[0-9a-f]{64}/gi, '[^\\s]+');
        return [name, new RegExp(pattern)] as const;
      });
    const missing = kinds.filter(([, pattern]) => !pattern.test(stored)).map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it.each([...redisFiles, ...memoryFiles, ...logFiles].map((f) => [f.slice(f.indexOf('test-artifacts')), f]))(
    'when %s is read, then it holds no test card number and no security code',
    (_short, file) => {
      const text = readFileSync(file, 'latin1');
      for (const pan of ALL_TEST_CARDS) expect(text.includes(pan), `card ${pan.slice(0, 6)}… in ${file}`).toBe(false);
      expect(cardLikeRuns(text)).toEqual([]);
      expect(SECURITY_CODE_FIELD.test(text), `a security code in ${file}`).toBe(false);
      expect(text.includes(`"${TEST_SECURITY_CODE}"`)).toBe(false);
    },
  );
});
