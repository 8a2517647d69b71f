import { z } from 'zod';
import { apiBase, envName, type AcquirerKind } from '../acquirers.js';
import { AdyenConnector } from './connector.js';

const adyenRouting = z.object({
  connector_code: z.literal('adyen'),
  api_key_env: envName,
  merchant_account: z.string().min(1),
  environment: z.enum(['TEST', 'LIVE']).default('TEST'),
  hmac_key_env: envName,
  api_base: apiBase,
});

/** Adyen (docs/connectors.md): an account's API key and HMAC key, named by environment variables, and its merchant account. */
export const adyenAcquirer: AcquirerKind<z.infer<typeof adyenRouting>> = {
  code: 'adyen',
  displayName: 'Adyen',
  routing: adyenRouting,
  make(r, secret, journal, ctx) {
    return new AdyenConnector(
      {
        apiKey: secret(r.api_key_env),
        hmacKey: secret(r.hmac_key_env),
        merchantAccount: r.merchant_account,
        environment: r.environment,
        returnUrl: ctx.baseUrl,
        ...(r.api_base ? { apiBase: r.api_base } : {}),
      },
      journal,
    );
  },
};
