import { describe, expect, it } from 'vitest';
import { parseBodyText } from '../../../src/http/middleware/body.js';
import { GatewayError } from '../../../src/core/kernel/errors.js';

describe('bodies (DESIGN section 3)', () => {
  it('when the body is a JSON text, then it is read as JSON whatever its declared type', () => {
    expect(parseBodyText('{"merchant_id":"1","n":{"a":[1]}}')).toEqual({ merchant_id: '1', n: { a: [1] } });
    expect(parseBodyText('\uFEFF  {"a":"b"}  ')).toEqual({ a: 'b' });
  });

  it('when the body is a real form, then it is read as fields', () => {
    expect(parseBodyText('merchant_id=1000001&order_no=A%201&empty=')).toEqual({ merchant_id: '1000001', order_no: 'A 1', empty: '' });
  });

  it('when the body starts with { but is not JSON, then it is a 400 naming the body', () => {
    expect(() => parseBodyText('{"a":')).toThrowError(GatewayError);
    try {
      parseBodyText('[1,');
    } catch (e) {
      expect((e as GatewayError).code).toBe('INVALID_BODY');
      expect((e as GatewayError).status).toBe(400);
    }
  });

  it('when the body is a JSON array, then it is refused: calls take an object', () => {
    expect(() => parseBodyText('[1,2]')).toThrowError(/must be a JSON object/);
  });

  it('when the body is empty, then it is an empty set of fields', () => {
    expect(parseBodyText('')).toEqual({});
  });
});
