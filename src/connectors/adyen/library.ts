import { createRequire } from 'node:module';
import type adyen from '@adyen/api-library';

let loaded: typeof adyen | undefined;

/**
 * The Adyen library, loaded when an Adyen account first needs it rather than at every start: loading it takes
 * about a second, which a gateway without Adyen accounts would pay for nothing.
 */
export function adyenLibrary(): typeof adyen {
  return (loaded ??= createRequire(import.meta.url)('@adyen/api-library') as typeof adyen);
}
