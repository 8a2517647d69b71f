import ejs from 'ejs';
import { describe, expect, it } from 'vitest';
import { hiddenInputs } from '../../../src/http/render/hidden-fields.js';
import { htmlText } from '../../../src/http/render/html-text.js';
import { unescapeHtml } from '../../support/checkout.js';

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

  it('when a value holds characters beyond Latin-1, then each is a numeric character reference a browser reads back as sent', () => {
    const value = 'Zoë Łukasiewicz 東京… 😀 \u0085ÿ';
    const html = hiddenInputs([['first_name', value]], '');
    expect(html).toBe('<input type="hidden" name="first_name" value="Zoë &#321;ukasiewicz &#26481;&#20140;&#8230; &#128512; \u0085ÿ">\n');
    // the whole line stays one byte a character; Latin-1 (é, ÿ, and U+0080 to U+009F, whose references mean other characters) as it is
    expect(html).not.toMatch(/[\u0100-\uffff]/);
    expect(unescapeHtml(/value="([^"]*)"/.exec(html)![1]!)).toBe(value);
  });

  it('when a text holds a lone surrogate, then it is written as U+FFFD, as UTF-8 would carry it', () => {
    expect(htmlText('a\ud800b\udfffc')).toBe('a&#65533;b&#65533;c');
    expect(htmlText('<…>')).toBe('&lt;&#8230;&gt;');
    expect(htmlText('plain text, é')).toBe('plain text, é');
  });

  it('when a name comes again, with another indent or after thousands of other names, then its line is still its own', () => {
    expect(hiddenInputs([['a&b', '1']], '\t')).toBe('\t<input type="hidden" name="a&amp;b" value="1">\n');
    expect(hiddenInputs([['a&b', '2']])).toBe('    <input type="hidden" name="a&amp;b" value="2">\n');
    const many = Array.from({ length: 2_500 }, (_, i) => [`n${i}`, String(i)] as const);
    const lines = hiddenInputs(many, '').split('\n');
    expect(lines[2_400]).toBe('<input type="hidden" name="n2400" value="2400">');
    expect(hiddenInputs([['n2499', 'x']], '')).toBe('<input type="hidden" name="n2499" value="x">\n');
  });
});
