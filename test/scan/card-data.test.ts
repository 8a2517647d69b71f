import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_TEST_CARDS, TEST_SECURITY_CODE } from '../support/cards.js';
import { LOG_DIR, REDIS_DIR } from '../support/paths.js';
import { luhnValid } from '../../src/core/kernel/cards.js';

/**
 * Runs after the whole suite (npm test's second step): what the suite left in Redis (append-only files and
 * uncompressed RDB snapshots) and in the logs must hold no card number in clear and no security code.
 */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

const redisFiles = filesUnder(REDIS_DIR).filter((f) => /(\.aof|\.rdb)$/.test(f));
const logFiles = filesUnder(LOG_DIR);

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

  it.each([...redisFiles, ...logFiles].map((f) => [f.slice(f.indexOf('test-artifacts')), f]))(
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
