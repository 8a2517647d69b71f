import ejs from 'ejs';
import { describe, expect, it } from 'vitest';
import { hiddenInputs } from '../../../src/http/render/hidden-fields.js';

describe('hidden inputs of a form', () => {
  it('when names and values are plain text, then each is one input line with them as they are', () => {
    expect(
      hiddenInputs([
        ['merNo', '1000001'],
        ['website', 'https://shop.example/a?b=c'],
      ]),
    ).toBe(
      '    <input type="hidden" name="merNo" value="1000001">\n    <input type="hidden" name="website" value="https://shop.example/a?b=c">\n',
    );
  });

  it("when a name or value holds &, <, >, \" or ', then it is escaped exactly as EJS's <%= %> escapes it", () => {
    const hostile = `"><script>alert('x')</script>&amp;`;
    const html = hiddenInputs([[hostile, hostile]], '');
    const viaEjs = ejs.escapeXML(hostile);
    expect(html).toBe(`<input type="hidden" name="${viaEjs}" value="${viaEjs}">\n`);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain(`"><`);
    expect(viaEjs).toBe('&#34;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;amp;');
  });
});
