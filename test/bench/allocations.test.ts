import { describe, expect, it } from 'vitest';
import { summariseAllocations, type HeapProfileNode } from '../../bench/profile.js';

const node = (functionName: string, url: string, selfSize: number, children: HeapProfileNode[] = []): HeapProfileNode => ({
  callFrame: { functionName, url, lineNumber: 9 },
  selfSize,
  children,
});

describe('the bench allocation summary', () => {
  it('when node and V8 allocate under our functions, then bytes go to the allocating function and to the nearest of ours', () => {
    const head = node('(root)', '', 0, [
      node('createCheckout', 'file:///srv/gw/dist/http/routes/checkout.js', 100, [
        node('hiddenInputs', 'file:///srv/gw/dist/http/render/hidden-fields.js', 1_000, [node('replace', '', 300)]),
        node('write_', 'node:_http_outgoing', 500, [node('byteLength', 'node:buffer', 200)]),
      ]),
      node('parserOnHeadersComplete', 'node:_http_common', 50),
    ]);
    const s = summariseAllocations(head);
    expect(s.totalBytes).toBe(2_150);
    expect(s.functions[0]).toEqual({ name: 'hiddenInputs', where: 'dist/http/render/hidden-fields.js:10', bytes: 1_000 });
    expect(s.ours).toEqual([
      { name: 'hiddenInputs', where: 'dist/http/render/hidden-fields.js:10', bytes: 1_300 },
      { name: 'createCheckout', where: 'dist/http/routes/checkout.js:10', bytes: 800 },
      { name: '(none of ours on the stack)', where: '', bytes: 50 },
    ]);
  });
});
