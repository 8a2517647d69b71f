import { describe, expect, it } from 'vitest';
import { parseBodyText } from '../../../src/http/middleware/body.js';
import { GatewayError } from '../../../src/core/kernel/errors.js';

describe('bodies (docs/api.md#bodies)', () => {
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

  it('when a member is named __proto__, constructor or prototype at any depth, then the body is a 400 naming it (docs/api.md#bodies)', () => {
    const refused = (text: string) => {
      try {
        parseBodyText(text);
      } catch (e) {
        return { code: (e as GatewayError).code, message: (e as GatewayError).message, field: (e as GatewayError).field };
      }
      return undefined;
    };
    expect(refused('{"a":"1","__proto__":{"amount":"1.00"}}')).toEqual({
      code: 'INVALID_FIELD',
      message: '__proto__: is a reserved name, not a field',
      field: '__proto__',
    });
    expect(refused('{"orders":[{"id":"1"},{"id":"2","constructor":{}}]}')?.message).toBe(
      'orders.1.constructor: is a reserved name, not a field',
    );
    expect(refused('{"a":{"b":[[{"prototype":1}]]}}')?.field).toBe('a.b.0.0.prototype');
    // JSON may spell a name's letters as escapes
    expect(refused('{"\\u005f_proto__":{}}')?.field).toBe('__proto__');
    expect(refused('{"a":{"construc\\u0074or":"x"}}')?.field).toBe('a.constructor');
    // as form fields, percent-encoded or not
    expect(refused('a=1&__proto__=x')?.field).toBe('__proto__');
    expect(refused('a=1&%63onstructor=x')?.field).toBe('constructor');
  });

  it('when the names appear only as values, or as parts of longer names, then the body is read as sent', () => {
    const body = parseBodyText('{"note":"__proto__ constructor prototype","constructors":"x","a":{"my_prototype":"\\u00e9"}}');
    expect(body).toEqual({ note: '__proto__ constructor prototype', constructors: 'x', a: { my_prototype: '\u00e9' } });
  });

  it('when a form has a field named like a member of Object, then it is a field like any other (no prototype)', () => {
    const fields = parseBodyText('toString=1&hasOwnProperty=2&a=3');
    expect(Object.getPrototypeOf(fields)).toBeNull();
    expect({ ...fields }).toEqual({ toString: '1', hasOwnProperty: '2', a: '3' });
    expect(parseBodyText('a=3').toString).toBeUndefined();
  });
});
