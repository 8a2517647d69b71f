import { describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { xmlDocument, xmlText } from '../../../src/http/render/xml.js';

describe('the respon XML writer', () => {
  const doc = xmlDocument('respon', {
    order_no: 'A<1>&"2"\'',
    amount: '10.00',
    note: '',
    risk_reasons: [
      { name: 'email_test_trigger', status: 'ACCEPT' },
      { name: 'high_amount', status: 'REVIEW' },
    ],
    encryption_data: 'ABC',
  });

  it('when values hold markup characters, then the document is well-formed and reads back the same values', () => {
    expect(XMLValidator.validate(doc)).toBe(true);
    const parsed = new XMLParser({ parseTagValue: false, isArray: (n) => n === 'risk_reasons' }).parse(doc).respon;
    expect(parsed.order_no).toBe('A<1>&"2"\'');
    expect(parsed.note).toBe('');
    expect(parsed.risk_reasons).toEqual([
      { name: 'email_test_trigger', status: 'ACCEPT' },
      { name: 'high_amount', status: 'REVIEW' },
    ]);
    expect(doc).not.toContain('<1>');
  });

  it('when elements are written, then they keep the given order, arrays as repeated elements', () => {
    expect([...doc.matchAll(/^ {2}<(\w+)>/gm)].map((m) => m[1])).toEqual([
      'order_no',
      'amount',
      'note',
      'risk_reasons',
      'risk_reasons',
      'encryption_data',
    ]);
    expect(doc.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<respon>\n')).toBe(true);
  });

  it('when a name is not an XML name, then nothing is written', () => {
    expect(() => xmlDocument('respon', { 'bad name': 'x' })).toThrow(/not an XML element name/);
    // names are remembered once checked: a refused one is not, nor is one nested in an object
    expect(() => xmlDocument('respon', { 'bad name': 'x' })).toThrow(/not an XML element name/);
    expect(() => xmlDocument('respon', { good: { '1st': 'x' } })).toThrow(/not an XML element name/);
    expect(() => xmlDocument('respon', { good: { '1st': 'x' } })).toThrow(/not an XML element name/);
  });

  it('when a text is plain it is written as it is; otherwise markup is escaped and what XML cannot carry is dropped', () => {
    expect(xmlText('20261123031031NA0JAQQD 25.00 https://shop.example/a?b=c')).toBe(
      '20261123031031NA0JAQQD 25.00 https://shop.example/a?b=c',
    );
    expect(xmlText('a&b<c>"\'')).toBe('a&amp;b&lt;c&gt;&quot;&apos;');
    expect(xmlText('tab\tline\nend')).toBe('tab\tline\nend');
    expect(xmlText('bell\u0007 and \uD800 lone, \uD83D\uDE00 pair, \uFFFE')).toBe('bell and  lone, \uD83D\uDE00 pair, ');
    expect(xmlText(undefined)).toBe('');
    expect(xmlText(12)).toBe('12');
  });
});
