import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/core/kernel/fingerprint.js';

/** The first implementation, kept here as the reference: stored fingerprints were made with its text. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${reference((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

describe('canonical JSON of a request (idempotency fingerprints)', () => {
  it('when keys come in any order, then the text is the same, sorted at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 'x', y: null }], c: 'é"\\n' } })).toBe(
      '{"a":{"c":"é\\"\\\\n","d":[2,{"y":null,"z":"x"}]},"b":1}',
    );
    expect(canonicalJson({ a: { c: 'é"\\n', d: [2, { y: null, z: 'x' }] }, b: 1 })).toBe(
      canonicalJson({ b: 1, a: { d: [2, { z: 'x', y: null }], c: 'é"\\n' } }),
    );
  });

  it('when values are empty, undefined or odd, then the text is what the first implementation wrote', () => {
    const odd = {
      '': '',
      e: [],
      o: {},
      u: undefined,
      list: [undefined, null, true, 0, -1.5, 1e21, ''],
      nested: [[{ b: [{}] }]],
      ключ: 'значение',
      Z: 'upper before lower',
    };
    expect(canonicalJson(odd)).toBe(reference(odd));
    expect(canonicalJson(odd)).toBe(
      '{"":"","Z":"upper before lower","e":[],"list":[null,null,true,0,-1.5,1e+21,""],"nested":[[{"b":[{}]}]],"o":{},"u":null,"ключ":"значение"}',
    );
    for (const v of ['s', 1, null, undefined, true, [], {}]) expect(canonicalJson(v)).toBe(reference(v));
  });

  it('when a value nests around the depth where the recursive writer hands over to the stack, then the text is the same', () => {
    for (const levels of [1, 63, 64, 65, 66, 200]) {
      let v: unknown = { z: 1, a: ['x', { q: null }] };
      for (let i = 0; i < levels; i++) v = i % 2 ? { k: v, b: [i] } : [v, i];
      expect(canonicalJson(v)).toBe(reference(v));
    }
  });

  it('when a top-level member is left out (the signature), then the text is that of the object without it, at any depth', () => {
    for (const levels of [0, 1, 70]) {
      let inner: unknown = { z: 1, encryption_data: 'inner copies stay' };
      for (let i = 0; i < levels; i++) inner = { k: inner };
      const body = { b: 2, encryption_data: 'SIG', a: inner };
      const { encryption_data: _sig, ...without } = body;
      expect(canonicalJson(body, 'encryption_data')).toBe(reference(without));
      expect(canonicalJson(body, 'encryption_data')).toContain('inner copies stay');
      expect(canonicalJson(body, 'encryption_data')).not.toContain('SIG');
    }
    expect(canonicalJson({ encryption_data: 'SIG' }, 'encryption_data')).toBe('{}');
  });

  it('when any JSON value is written, with any text (quotes, controls, lone surrogates), then the text is the reference one', () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\ud800', '\udc00', 'é', 'a') }),
    );
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), tie('list'), tie('object')),
      list: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(text, tie('value'), { maxKeys: 6 }),
    })).value;
    fc.assert(
      fc.property(json, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
        if (v && typeof v === 'object' && !Array.isArray(v)) {
          const name = Object.keys(v)[0];
          if (name === undefined) return;
          const { [name]: _left, ...without } = v as Record<string, unknown>;
          expect(canonicalJson(v, name)).toBe(reference(without));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('when two objects have names that join to the same text, then each is written with its own names (the layout cache confirms a hit)', () => {
    const two = { a: 1, b: 2 };
    const one = { 'a\u0000b': 3 };
    for (let i = 0; i < 3; i++) {
      expect(canonicalJson(two)).toBe('{"a":1,"b":2}');
      expect(canonicalJson(one)).toBe(reference(one));
      expect(canonicalJson({ b: 2, a: 1 })).toBe('{"a":1,"b":2}');
    }
    // with the signature left out, and without: two layouts of the same names
    expect(canonicalJson({ x: 1, encryption_data: 's' }, 'encryption_data')).toBe('{"x":1}');
    expect(canonicalJson({ x: 1, encryption_data: 's' })).toBe('{"encryption_data":"s","x":1}');
    // an empty name left out, and the same names with nothing left out
    expect(canonicalJson({ '': false })).toBe('{"":false}');
    expect(canonicalJson({ '': false }, '')).toBe('{}');
    expect(canonicalJson({ '': false })).toBe('{"":false}');
  });

  it('when more layouts than the recent ones alternate, with the same count of names or the same names in another order, then each is written with its own names', () => {
    const layouts = Array.from({ length: 12 }, (_, i) => [`n${i}`, `m${i % 3}`, 'z']);
    layouts.push(['z', 'm0', 'n0'], ['m0', 'n0', 'z']);
    for (let round = 0; round < 3; round++) {
      for (const [i, names] of layouts.entries()) {
        const value = Object.fromEntries(names.map((n, j) => [n, i * 10 + j]));
        expect(canonicalJson(value)).toBe(reference(value));
        expect(canonicalJson(value, names[1])).toBe(reference(Object.fromEntries(Object.entries(value).filter(([n]) => n !== names[1]))));
        expect(canonicalJson({ inner: value, k: [value, value] })).toBe(reference({ inner: value, k: [value, value] }));
      }
    }
  });
});
