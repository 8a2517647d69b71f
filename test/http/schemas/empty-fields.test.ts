import { describe, expect, it } from 'vitest';
import { isEmptyValue, parseOrThrow, withoutEmptyFields } from '../../../src/http/schemas/common.js';
import { captureSchema } from '../../../src/http/schemas/operations.js';

describe('empty fields count as absent (docs/api.md#bodies)', () => {
  it('when a value is "", {}, [] or an object or array of empty values, then it is empty; anything else is not', () => {
    for (const v of ['', {}, [], { a: '' }, { a: { b: '', c: [] } }, [{ x: '' }], ['']])
      expect(isEmptyValue(v), JSON.stringify(v)).toBe(true);
    for (const v of [' ', '0', 0, false, null, { a: '', b: 'x' }, [{ x: 'y' }], ['', 'a']])
      expect(isEmptyValue(v), JSON.stringify(v)).toBe(false);
  });

  it('when a body has empty fields at several levels, then they are dropped and array items keep their place', () => {
    const body = {
      card: '',
      note: 'kept',
      subscription: { contract_name: '', contract_amount: '' },
      cart_items: [{ basic_item_data: { name: 'x', type: '' } }, { basic_item_data: { name: 'y' } }],
      flags: [],
      zero: 0,
    };
    expect(withoutEmptyFields(body)).toEqual({
      note: 'kept',
      cart_items: [{ basic_item_data: { name: 'x' } }, { basic_item_data: { name: 'y' } }],
      zero: 0,
    });
    expect(body.card).toBe('');
  });

  it('when a body has no empty field, then it is read as it came (no copy); otherwise only the changed parts are new', () => {
    const clean = { a: 'x', nested: { b: 1, list: [{ c: 'y' }] }, flag: false, none: null };
    expect(withoutEmptyFields(clean)).toBe(clean);
    const body = { a: 'x', keep: { b: 1 }, drop: { c: '' }, list: [{ d: '' }, { e: 'z' }], last: '' };
    const before = JSON.stringify(body);
    const out = withoutEmptyFields(body) as Record<string, unknown>;
    expect(out).toEqual({ a: 'x', keep: { b: 1 }, list: [{}, { e: 'z' }] });
    expect(Object.keys(out)).toEqual(['a', 'keep', 'list']);
    expect(out.keep).toBe(body.keep);
    expect((out.list as unknown[])[1]).toBe(body.list[1]);
    expect(JSON.stringify(body)).toBe(before);
  });

  it('when a required field of an array item is sent empty, then the 400 names that item and field as missing', () => {
    const body = {
      merchant_id: '1000001',
      account_id: '1000001001',
      encryption_data: 'a'.repeat(64),
      capture_orders: [
        { transaction_id: 'T1', order_no: 'O1', currency: 'USD', amount: '1.00' },
        { transaction_id: 'T2', order_no: '', currency: 'USD', amount: '1.00' },
      ],
    };
    expect(() => parseOrThrow(captureSchema, body)).toThrow('capture_orders.1.order_no: is required');
  });

  it('when a body read elsewhere carries an own "__proto__" member, then the copy has no prototype and no field is read from it (finding 4)', () => {
    // the body reader refuses such a member (http/middleware/body.ts); the copy holds even without it
    const body = JSON.parse(
      '{"merchant_id":"1000001","account_id":"1000001001","encryption_data":"' +
        'a'.repeat(64) +
        '","capture_orders":"","__proto__":{"capture_orders":[{"transaction_id":"T1","order_no":"O1","currency":"USD","amount":"1.00"}]}}',
    ) as Record<string, unknown>;
    const copy = withoutEmptyFields(body) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBeNull();
    expect(copy.capture_orders).toBeUndefined();
    expect(() => parseOrThrow(captureSchema, body)).toThrow('capture_orders: is required');
  });
});
