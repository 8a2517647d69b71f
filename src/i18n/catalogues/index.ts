import type { Catalogue } from './en.js';
import { en } from './en.js';
import { de } from './de.js';
import { fr } from './fr.js';
import { es } from './es.js';
import { it } from './it.js';
import { pt } from './pt.js';
import { ptBR } from './pt-BR.js';
import { nl } from './nl.js';
import { sv } from './sv.js';
import { da } from './da.js';
import { nb } from './nb.js';
import { fi } from './fi.js';
import { pl } from './pl.js';
import { cs } from './cs.js';
import { sk } from './sk.js';
import { hu } from './hu.js';
import { ro } from './ro.js';
import { bg } from './bg.js';
import { el } from './el.js';
import { hr } from './hr.js';
import { sl } from './sl.js';
import { et } from './et.js';
import { lv } from './lv.js';
import { lt } from './lt.js';
import { tr } from './tr.js';
import { ru } from './ru.js';
import { uk } from './uk.js';
import { ar } from './ar.js';
import { he } from './he.js';
import { fa } from './fa.js';
import { hi } from './hi.js';
import { th } from './th.js';
import { vi } from './vi.js';
import { id } from './id.js';
import { ms } from './ms.js';
import { ja } from './ja.js';
import { ko } from './ko.js';
import { zhHans } from './zh-Hans.js';
import { zhHant } from './zh-Hant.js';
import { cy } from './cy.js';

/** Every language the hosted pages speak, by its BCP 47 tag (the 40 docs/checkout.md lists). */
export const CATALOGUES: Record<string, Catalogue> = {
  en: en,
  de: de,
  fr: fr,
  es: es,
  it: it,
  pt: pt,
  'pt-BR': ptBR,
  nl: nl,
  sv: sv,
  da: da,
  nb: nb,
  fi: fi,
  pl: pl,
  cs: cs,
  sk: sk,
  hu: hu,
  ro: ro,
  bg: bg,
  el: el,
  hr: hr,
  sl: sl,
  et: et,
  lv: lv,
  lt: lt,
  tr: tr,
  ru: ru,
  uk: uk,
  ar: ar,
  he: he,
  fa: fa,
  hi: hi,
  th: th,
  vi: vi,
  id: id,
  ms: ms,
  ja: ja,
  ko: ko,
  'zh-Hans': zhHans,
  'zh-Hant': zhHant,
  cy: cy,
};
