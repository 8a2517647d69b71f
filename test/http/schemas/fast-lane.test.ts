import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseOrThrow, withoutEmptyFields } from '../../../src/http/schemas/common.js';
import { ABSENT, FAIL, assembler, laneOf, parseByLanes, requestObject } from '../../../src/http/schemas/fast-lane.js';
import { ROOT } from '../../support/paths.js';
import { authoriseSchema, checkoutSchema } from '../../../src/http/schemas/payment-request.js';

/** A body every field of which is valid: an authorise with card data and most order fields set. */
function validBody(): Record<string, unknown> {
  return {
    merchant_id: '1000001',
    account_id: '1000001001',
    order_no: 'LANE-1',
    currency: 'USD',
    amount: '25',
    item_total: '25.0',
    shipping: '0',
    items: 'Mug#,#SKU-7#,#12.50#,#2',
    website: 'https://shop.example',
    shopper_email: 'a@example.com',
    shopper_ip: '203.0.113.9',
    first_name: 'Ada',
    last_name: 'Lovelace',
    note: 'ring twice',
    token_flag: 'NO',
    billing_country: 'GB',
    billing_city: 'London',
    user_agent: 'Mozilla/5.0',
    checkout_time: 1763700000,
    cart_items: [
      { basic_item_data: { name: 'Mug', quantity: '2', price: { amount_usd: 12.5, amount_local_currency: 12.5, currency: 'USD' } } },
    ],
    card: '4242 4242 4242 4242',
    expiration_month: '12',
    expiration_year: '2034',
    security_code: '737',
    return_url: 'https://shop.example/back',
    cancel_url: 'https://shop.example/cancel',
    encryption_data: 'a'.repeat(64),
    unknown_extra: 'dropped by both',
  };
}

/** Every key of a value, at every depth, in order (a key holding undefined too). */
function keyPaths(value: unknown, at = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.keys(value).flatMap((k) => [`${at}${k}`, ...keyPaths((value as Record<string, unknown>)[k], `${at}${k}.`)]);
}

/** A change that takes the field out of the body. */
const REMOVED = Symbol('removed');

const SCHEMAS = { authorise: authoriseSchema, checkout: checkoutSchema } as const;

/** Values a merchant's integration might send in any field, near every lane's limits. */
const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(''),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.string({ minLength: 60, maxLength: 70 }),
  fc.string({ minLength: 250, maxLength: 260 }),
  fc.constantFrom('10', '10.5', '10.50', '10.505', '-1', '0', ' 10', '1e3', 'USD', 'NO', 'YES', 'do3DS', 'no3DS', 'yes'),
  fc.constantFrom('GB', 'gb', 'G', 'GBR', '1', '01', '12', '13', '2034', '34', '737', '7377', 'a'.repeat(64), 'f'.repeat(63), 'B-1'),
  // near the lanes of amounts, currencies, contacts, addresses, dates, items and cards
  fc.constantFrom('0', '0.00', '0.01', 'EUR', 'usd', 'XXX', 'JPY', '05', '06', '00', '1763700000', '12345678901234', '-5'),
  fc.constantFrom('a@example.com', 'a.b+c@shop.example', 'a@b', '@example.com', 'a@example.c', 'ada@例え.jp', 'x@y..com'),
  fc.constantFrom('203.0.113.9', '0.0.0.0', '255.255.255.255', '256.1.1.1', '01.2.3.4', '::1', '2001:db8::1', '1.2.3'),
  fc.constantFrom('https://shop.example/x', 'http://a', 'ftp://shop.example', 'https://', 'shop.example', 'javascript:alert(1)'),
  fc.constantFrom(
    '4242424242424242',
    '4242 4242 4242 4242',
    '4242-4242-4242-4242',
    '4242424242424241',
    '42424242424',
    '4242\t4242424242424242',
  ),
  fc.constantFrom('Mug#,#SKU#,#1.00#,#1', 'Mug#,#SKU#,#1#,#0', '#,#SKU#,#1#,#1', 'A#,#1#,#2#,#3#;#B#,#2#,#1.5#,#2', 'A#,#1#,#2'),
  fc.constantFrom('01-02-1990', '31-02-1990', '29-02-2000', '29-02-1900', '01-01-1899', '1990-02-01'),
  fc.constantFrom(1e13, 2 ** 53, -1, 0.5, Number.NaN, Infinity, -0),
  fc.stringMatching(/^[\x20-\x7f]{0,66}$/),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
);

describe('parse by lanes: the narrow success path of request parsing (schemas/fast-lane.ts)', () => {
  const laned = Object.entries({ ...authoriseSchema.shape, ...checkoutSchema.shape }).filter(([, s]) => laneOf(s as z.ZodType));

  it('when the wide schemas are built, then their plain text, optional amount, pattern and choice fields have lanes', () => {
    const names = laned.map(([k]) => k);
    expect(names.length).toBeGreaterThanOrEqual(58);
    for (const name of ['first_name', 'note', 'user_agent', 'item_total', 'shipping', 'accept', 'default_lang', 'merchant_id', 'order_no'])
      expect(names).toContain(name);
    for (const name of ['open3d', 'token_flag', 'billing_country', 'expiration_month', 'security_code', 'encryption_data'])
      expect(names).toContain(name);
    for (const name of ['amount', 'card', 'shopper_email', 'shopper_ip', 'cart_items', 'items', 'currency', 'checkout_time', 'notify_url'])
      expect(names).toContain(name);
    // arrays and objects a plug-in rarely sends stay with zod alone
    for (const name of ['account_owner', 'total_discount', 'additional_information', 'subscription']) expect(names).not.toContain(name);
  });

  it('when a lane accepts a value, then its field schema accepts it with the same output', () => {
    fc.assert(
      fc.property(fc.constantFrom(...laned), anyValue, ([name, schema], value) => {
        const lane = laneOf(schema as z.ZodType)!;
        const verdict = lane(value);
        if (verdict === FAIL) return;
        const zod = (schema as z.ZodType).safeParse(value);
        expect(zod.success, `${name} ${JSON.stringify(value)}`).toBe(true);
        expect(zod.data).toEqual(verdict === ABSENT ? undefined : verdict);
      }),
      { numRuns: 3000 },
    );
  });

  it('when a lane refuses a value, then its field schema refuses it too: lanes accept everything valid but nothing more', () => {
    fc.assert(
      fc.property(fc.constantFrom(...laned), anyValue, ([name, schema], value) => {
        if (laneOf(schema as z.ZodType)!(value) !== FAIL) return;
        expect((schema as z.ZodType).safeParse(value).success, `${name} ${JSON.stringify(value)}`).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it('when a cart is near valid, then its lane answers exactly as zod does (the same items, keys in the same order) or refuses what zod refuses', () => {
    const cartSchema = authoriseSchema.shape.cart_items as z.ZodType;
    const cartLane = laneOf(cartSchema)!;
    // mostly valid values, so that most items are accepted and each wrong value is met alone
    const mostly = <T, U>(valid: fc.Arbitrary<T>, wrong: fc.Arbitrary<U>) =>
      fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: wrong, weight: 1 });
    const optionalText = (max: number) =>
      mostly(
        fc.oneof(fc.string({ maxLength: 4 }), fc.string({ minLength: max, maxLength: max }), fc.constant(undefined)),
        fc.oneof(fc.string({ minLength: max + 1, maxLength: max + 1 }), fc.integer(), fc.constant(null)),
      );
    const amount = mostly(
      fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.double({ min: 0, noNaN: true }), fc.constant(-0)),
      fc.constantFrom('1', Number.NaN, -1, Infinity),
    );
    const item = fc.record(
      {
        basic_item_data: mostly(
          fc.record(
            {
              name: mostly(
                fc.oneof(fc.string({ maxLength: 4 }), fc.string({ minLength: 255, maxLength: 255 })),
                fc.constantFrom('x'.repeat(256), 7, undefined),
              ),
              quantity: mostly(fc.constantFrom('2', '0', '1'.repeat(16)), fc.constantFrom('-1', '1.5', '', '1'.repeat(17), '٣', 2)),
              type: optionalText(64),
              category: optionalText(128),
              productId: optionalText(128),
              price: mostly(
                fc.record(
                  {
                    amount_usd: amount,
                    amount_local_currency: amount,
                    currency: mostly(fc.constantFrom('USD', 'JPY'), fc.constantFrom('usd', 'XXX', 1)),
                    extra: fc.string(),
                  },
                  { requiredKeys: ['amount_usd', 'amount_local_currency', 'currency'] },
                ),
                fc.constantFrom(null, [], 'x'),
              ),
              extra: fc.string(),
            },
            { requiredKeys: ['name', 'quantity', 'price'] },
          ),
          fc.constantFrom(null, [], 'x'),
        ),
        other: fc.string(),
      },
      { requiredKeys: ['basic_item_data'] },
    );
    let accepted = 0;
    fc.assert(
      fc.property(mostly(fc.array(item, { maxLength: 3 }), fc.constantFrom(undefined, null, {}, 'x')), (cart) => {
        const verdict = cartLane(cart);
        const zod = cartSchema.safeParse(cart);
        if (verdict === FAIL) {
          expect(zod.success, JSON.stringify(cart)).toBe(false);
          return;
        }
        if (Array.isArray(cart) && cart.length > 0) accepted++;
        expect(zod.success, JSON.stringify(zod.error?.issues[0])).toBe(true);
        expect(verdict === ABSENT ? undefined : verdict).toEqual(zod.data);
        // the same keys (also those holding undefined) in the same order, at every depth
        expect(keyPaths(verdict === ABSENT ? undefined : verdict)).toEqual(keyPaths(zod.data));
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(300);
  });

  it('when any fields of a body are changed, then the lanes answer as the full schema does, key order included, or leave it to the schema', () => {
    const fields = [...new Set([...Object.keys(authoriseSchema.shape), ...Object.keys(checkoutSchema.shape)])];
    let answered = 0;
    fc.assert(
      fc.property(
        fc.constantFrom('authorise', 'checkout'),
        fc.dictionary(fc.constantFrom(...fields), fc.oneof(anyValue, fc.constant(REMOVED)), { maxKeys: 4 }),
        (call, changes) => {
          const body: Record<string, unknown> = validBody();
          for (const [k, v] of Object.entries(changes)) {
            if (v === REMOVED) delete body[k];
            else body[k] = v;
          }
          const input = withoutEmptyFields(body);
          const schema = SCHEMAS[call];
          const quick = parseByLanes(schema, input);
          const full = schema.safeParse(input);
          if (quick === FAIL) return;
          answered++;
          expect(full.success, JSON.stringify(full.error?.issues[0])).toBe(true);
          expect(quick).toEqual(full.data);
          expect(Object.keys(quick as object)).toEqual(Object.keys(full.data as object));
        },
      ),
      { numRuns: 2000 },
    );
    // not a vacuous pass: many changed bodies are still valid and were answered by the lanes
    expect(answered).toBeGreaterThan(200);
  });

  it('when the body is valid, then the lanes answer it; when a field or a rule refuses it, then parseOrThrow words the error as the schema does', () => {
    for (const schema of Object.values(SCHEMAS)) {
      const input = withoutEmptyFields(validBody());
      expect(parseByLanes(schema, input)).not.toBe(FAIL);
      expect(parseByLanes(schema, input)).toEqual(schema.safeParse(input).data);
    }
    expect(() => parseOrThrow(authoriseSchema, { ...validBody(), first_name: 'x'.repeat(65) })).toThrow(
      'first_name: must be at most 64 characters',
    );
    expect(() => parseOrThrow(authoriseSchema, { ...validBody(), note: 7 })).toThrow('note: must be a string');
    expect(() => parseOrThrow(authoriseSchema, { ...validBody(), shipping: '1.234' })).toThrow('shipping: must be a decimal amount');
    // a cross-field rule: the items add up to 25.00, not to this item_total
    expect(() => parseOrThrow(checkoutSchema, { ...validBody(), item_total: '24.00' })).toThrow('items: unit price times quantity adds up');
    expect(() => parseOrThrow(authoriseSchema, { ...validBody(), card: '' })).toThrow('card: is required (or token_id)');
  });

  it('when a lane would accept what zod refuses elsewhere, then nothing is answered by lanes: a schema not made by requestObject, or not an object', () => {
    const plain = z.object({ a: z.string() });
    expect(parseByLanes(plain, { a: 'x' })).toBe(FAIL);
    expect(parseByLanes(authoriseSchema, ['not', 'an', 'object'])).toBe(FAIL);
    expect(parseByLanes(authoriseSchema, null)).toBe(FAIL);
    // a field named __proto__ is one zod drops from its output: such a shape keeps to the full schema
    const odd = requestObject({ ['__proto__']: z.string().optional(), b: z.string() });
    expect(parseByLanes(odd, { b: 'x' })).toBe(FAIL);
    expect(odd.safeParse({ b: 'x' }).success).toBe(true);
  });

  it('when the process refuses generated code (node --disallow-code-generation-from-strings), then the schemas load and parse by a loop', () => {
    const script = [
      "import { authoriseSchema } from './src/http/schemas/payment-request.ts';",
      "import { parseOrThrow, withoutEmptyFields } from './src/http/schemas/common.ts';",
      `const body = ${JSON.stringify(validBody())};`,
      'const out = parseOrThrow(authoriseSchema, body);',
      'console.log(JSON.stringify(out) === JSON.stringify(authoriseSchema.safeParse(withoutEmptyFields(body)).data) ? "same" : "differs");',
    ].join('\n');
    const printed = execFileSync(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(printed.trim()).toBe('same');
  });

  it('when the loop assembler and the generated one build the same bodies, then their outputs are the same', () => {
    const shape = authoriseSchema.shape as Record<string, z.ZodType>;
    const keys = Object.keys(shape);
    const lanes = keys.map((k) => laneOf(shape[k]!));
    const generated = assembler(keys, lanes);
    const loop = assembler(keys, lanes, false);
    const others = { amount: '25.00', currency: 'USD', cart_items: [] };
    for (const body of [validBody(), { ...validBody(), note: undefined }, {}, { ...validBody(), first_name: 7 }]) {
      const a = generated(others, body);
      expect(loop(others, body)).toEqual(a);
      if (a !== FAIL) expect(Object.keys(loop(others, body) as object)).toEqual(Object.keys(a as object));
    }
  });
});
