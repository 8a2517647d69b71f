import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseAmount } from '../../../src/core/kernel/money.js';
import { AMOUNT_TEXT, httpUrl, POSITIVE_AMOUNT_TEXT } from '../../../src/http/schemas/common.js';
import { authoriseSchema, itemProblems } from '../../../src/http/schemas/payment-request.js';
import { jsonSchemaOf } from '../../../src/http/openapi/json-schema.js';

/**
 * The OpenAPI document's patterns are the schemas' own (issue 43). Where a check is code (parseAmount, the
 * URL parser, itemProblems), the pattern beside it must take every text the code takes, so a client that
 * keeps to the document is never refused for the pattern's sake; for amounts it must take nothing else.
 */
const near = (alphabet: string, maxLength = 16) => fc.string({ unit: fc.constantFrom(...alphabet), maxLength });

describe('when an amount text is read', () => {
  it('then the document’s pattern takes exactly the texts parseAmount reads, and its positive pattern those above zero', () => {
    fc.assert(
      fc.property(fc.oneof(near('0123456789.'), near('0123456789.-+e ', 20), fc.string()), (v) => {
        expect(AMOUNT_TEXT.test(v)).toBe(parseAmount(v) !== undefined);
        expect(POSITIVE_AMOUNT_TEXT.test(v)).toBe((parseAmount(v) ?? 0) > 0);
      }),
      { numRuns: 20_000 },
    );
    for (const edge of ['99999999999.99', '100000000000', '0', '0.0', '0.01', '0.10', '01', '1.', '.5'])
      expect([edge, AMOUNT_TEXT.test(edge), POSITIVE_AMOUNT_TEXT.test(edge)]).toEqual([
        edge,
        parseAmount(edge) !== undefined,
        (parseAmount(edge) ?? 0) > 0,
      ]);
  });
});

describe('when a notify or return address is read', () => {
  it('then every text the URL parser reads as http or https matches the document’s pattern', () => {
    const pattern = new RegExp(String(jsonSchemaOf(httpUrl).pattern), 'u');
    const isHttp = (v: string) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol);
    const noise = fc.constantFrom('', ' ', '\t', '\n', '\u0000', '\u001f', 'H', 'tTp', 's', ':', '//', 'x.example', '/', 'ftp:');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.webUrl(),
          fc.array(noise, { maxLength: 8 }).map((a) => a.join('')),
          fc.string(),
        ),
        (v) => {
          if (isHttp(v)) expect(pattern.test(v), JSON.stringify(v)).toBe(true);
        },
      ),
      { numRuns: 20_000 },
    );
    for (const v of [' http://a.example', 'HTTP://A.EXAMPLE', 'https:a.example', '\u0001http://a.example'])
      expect([v, isHttp(v), pattern.test(v)]).toEqual([v, true, true]);
  });
});

describe('when an items text is read', () => {
  const pattern = new RegExp(String((jsonSchemaOf(authoriseSchema).properties as Record<string, { pattern: string }>).items!.pattern), 'u');

  it('then every text itemProblems accepts matches the document’s pattern', () => {
    const part = near('ab#,;1.', 8);
    const record = fc.tuple(
      part,
      part,
      fc.oneof(near('0123456789.', 6), fc.constantFrom('5.00', '0', '7.5')),
      fc.oneof(near('0123456789', 3), fc.constant('2')),
    );
    const items = fc.oneof(
      fc.array(record, { minLength: 1, maxLength: 4 }).map((rs) => rs.map((r) => r.join('#,#')).join('#;#')),
      near('ab#,;1.2', 30),
    );
    let accepted = 0;
    fc.assert(
      fc.property(items, (v) => {
        if (itemProblems(v).length > 0) return;
        accepted++;
        expect(pattern.test(v), JSON.stringify(v)).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    expect(accepted).toBeGreaterThan(500);
  });

  it('then the pattern answers a 10,000-character text in linear time', () => {
    for (const v of ['a#,#'.repeat(2500), '#'.repeat(10_000), `${'a#,#b#,#1#,#1#;#'.repeat(620)}x`, 'a#;'.repeat(3333)]) {
      const started = performance.now();
      pattern.test(v);
      expect(performance.now() - started).toBeLessThan(50);
    }
  });
});
