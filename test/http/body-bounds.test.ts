import { describe, expect, it } from 'vitest';
import { maxPatternLength } from '../../src/http/pattern-length.js';
import { xmlShapeExceeds } from '../../src/http/middleware/xml-body.js';
import { bodyBoundsFor } from '../../src/http/body-bounds.js';
import { parseBodyText } from '../../src/http/body-text.js';
import { GatewayError } from '../../src/core/kernel/errors.js';

/** Issue 55 finding 1: each call's bounds come from its schema, and passing one is refused before parsing. */
const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof GatewayError) return `${e.code} ${e.message}`;
    throw e;
  }
  return 'accepted';
};

describe('when a schema pattern is read for its longest match', () => {
  it('then fixed, bounded and alternative parts add up, lookarounds count nothing, and * or + is unbounded', () => {
    expect(maxPatternLength('^[0-9a-fA-F]{64}$')).toBe(64);
    expect(maxPatternLength('^(?:0|[1-9]\\d{0,10})(?:\\.\\d{1,2})?$')).toBe(14);
    expect(maxPatternLength('^(?!x)[\\u0020-\\u007E]{1,64}$')).toBe(64);
    expect(maxPatternLength('^(ab|cde)?f$')).toBe(4);
    expect(maxPatternLength('^card_[0-9A-Za-z_-]{8,64}$')).toBe(69);
    expect(maxPatternLength('^\\d+$')).toBe(Infinity);
    expect(maxPatternLength('^a{2,}$')).toBe(Infinity);
  });
});

describe('when an XML document is scanned before parsing', () => {
  it('then depth and elements are counted in one pass that stops at the first bound passed', () => {
    expect(xmlShapeExceeds(`<r>${'<a>'.repeat(1_000_000)}`, 33, 1_000)).toBe('depth');
    expect(xmlShapeExceeds(`<r>${'<a/>'.repeat(2_000)}</r>`, 33, 1_001)).toBe('elements');
    expect(xmlShapeExceeds(`<r>${'<a/>'.repeat(1_000)}</r>`, 33, 1_001)).toBeUndefined();
    // comments, CDATA, declarations and instructions count nothing; a quoted > does not end a tag
    const quiet = `<?xml version="1.0"?><!-- <a><a><a> --><r x="a>b"><![CDATA[<a><a>]]><b>1</b></r>`;
    expect(xmlShapeExceeds(quiet, 2, 2)).toBeUndefined();
  });

  it('then a document past its call’s bounds is refused naming the bound, before any parser reads it', () => {
    const bounds = bodyBoundsFor('/portal/login');
    expect(refusal(() => parseBodyText(`<r>${'<a>x</a>'.repeat(bounds.elements + 1)}</r>`, bounds))).toBe(
      `INVALID_BODY body: has more than ${bounds.elements} elements`,
    );
    expect(refusal(() => parseBodyText(`<r>${'<a>'.repeat(40)}${'</a>'.repeat(40)}</r>`, bounds))).toBe(
      'INVALID_BODY body: is nested deeper than 32 levels',
    );
    expect(refusal(() => parseBodyText(Array.from({ length: bounds.elements + 1 }, (_, i) => `f${i}=1`).join('&'), bounds))).toBe(
      `INVALID_BODY body: has more than ${bounds.elements} fields`,
    );
  });
});

describe('when a call’s largest legal body is written out', () => {
  it('then a 50-order capture with every field at its longest, every character escaped, is within the capture’s limit and bounds', () => {
    const order: Record<string, string> = {
      transaction_id: 'é'.repeat(64),
      order_no: 'é'.repeat(64),
      currency: 'USD',
      amount: '99999999999.99',
    };
    const body = {
      merchant_id: '1000001',
      account_id: '1000001001',
      encryption_data: 'a'.repeat(64),
      capture_orders: Array(50).fill(order),
    };
    const escaped = JSON.stringify(body).replace(/é/g, '\\u00e9');
    const bounds = bodyBoundsFor('/v1/capture');
    expect(Buffer.byteLength(escaped)).toBeLessThanOrEqual(bounds.bytes);
    expect(refusal(() => parseBodyText(escaped.padEnd(20_000, ' '), bounds))).toBe('accepted');
    const xml = `<?xml version="1.0" encoding="UTF-8"?><request><merchant_id>1000001</merchant_id>${body.capture_orders
      .map(
        (o) =>
          `<capture_orders>${Object.entries(o)
            .map(([k, v]) => `<${k}>${String(v).replace(/é/g, '&#233;')}</${k}>`)
            .join('')}</capture_orders>`,
      )
      .join('')}</request>`;
    expect(Buffer.byteLength(xml)).toBeLessThanOrEqual(bounds.bytes);
    expect(refusal(() => parseBodyText(xml, bounds))).toBe('accepted');
  });
});
