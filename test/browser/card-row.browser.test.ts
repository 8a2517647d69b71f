import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostedWorld, type HostedWorld } from '../support/hosted-world.js';
import { LANGUAGES } from '../../src/i18n/index.js';

// The card page's month, year and security code sit on one line (docs/checkout.md): in every hosted language,
// on a desktop and on a phone, each of the three labels fits on one line and the three inputs start at the
// same height, so no language's wording pushes one field out of the row.
let w: HostedWorld;

beforeAll(async () => {
  w = await startHostedWorld('card-row');
});
afterAll(async () => {
  await w?.close();
});

const WIDTHS = [1280, 390] as const;
const FIELDS = ['expiration_month', 'expiration_year', 'security_code'] as const;

interface Row {
  inputTops: number[];
  /** how many lines each label takes */
  labelLines: number[];
}

describe('when the card page is shown in every hosted language', () => {
  it('then month, year and security code keep one-line labels and inputs at the same height at 1280 and 390 px', async () => {
    const page = await w.newPage();
    const misfits: string[] = [];
    for (const lang of LANGUAGES) {
      await page.goto(await w.checkoutUrl({ default_lang: lang }));
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        const row: Row = await page.evaluate((ids) => {
          const inputTops = ids.map((id) => Math.round(document.getElementById(id)!.getBoundingClientRect().top));
          const labelLines = ids.map((id) => {
            const label = document.querySelector(`label[for="${id}"]`)!;
            const lineHeight = Number(getComputedStyle(label).lineHeight.replace(/px$/, ''));
            return Math.round(label.getBoundingClientRect().height / lineHeight);
          });
          return { inputTops, labelLines };
        }, FIELDS);
        if (new Set(row.inputTops).size !== 1 || row.labelLines.some((n) => n !== 1))
          misfits.push(`${lang} at ${width} px: input tops ${row.inputTops.join('/')}, label lines ${row.labelLines.join('/')}`);
      }
    }
    await page.context().close();
    expect(misfits).toEqual([]);
  }, 180_000);
});
