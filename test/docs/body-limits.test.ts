import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BODY_BOUNDS, DEFAULT_BOUNDS, PAGE_FORM_IDS } from '../../src/http/body-bounds.js';
import { PAGES } from '../../src/http/openapi/pages.js';
import { ROOT } from '../support/paths.js';

/**
 * docs/security.md lists every call's body limit and element bound as the code computes them (issue 55
 * finding 1): this test renders the table from http/body-bounds.ts and finds it in the document, so the two
 * cannot drift. When a schema changes, paste the table it prints.
 */
function boundsTable(): string {
  const rows = [...BODY_BOUNDS].map(
    ([path, b]) => `| \`${path}\` | ${(b.bytes / 1024).toLocaleString('en')} KB | ${b.elements.toLocaleString('en')} |`,
  );
  rows.push(`| any other POST | ${DEFAULT_BOUNDS.bytes / 1024} KB | ${DEFAULT_BOUNDS.elements} |`);
  return [
    '| call | body at most | elements (JSON members and items, XML elements, form fields) at most |',
    '| --- | ---: | ---: |',
    ...rows,
  ].join('\n');
}

describe('when docs/security.md states the body limits', () => {
  it('then its table is the one the code computes, call by call', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'security.md'), 'utf8');
    const table = boundsTable();
    expect(doc.includes(table), `docs/security.md must hold this table:\n\n${table}\n`).toBe(true);
  });

  it('then every form post of the pages has bounds of its own, none falls back to the default', () => {
    const posts = PAGES.filter((p) => p.method === 'post' && !p.path.startsWith('/connectors/') && !p.path.startsWith('/v1/checkout?'));
    const missing = posts.filter((p) => !BODY_BOUNDS.has(p.path)).map((p) => `${p.operationId} ${p.path}`);
    expect(missing).toEqual([]);
    expect(PAGE_FORM_IDS.every((id) => PAGES.some((p) => p.operationId === id))).toBe(true);
  });
});
