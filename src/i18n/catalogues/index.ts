import type { Catalogue } from './en.js';
import { en } from './en.js';

/** Every language the hosted pages speak, by its BCP 47 tag. */
export const CATALOGUES: Record<string, Catalogue> = {
  en,
};
