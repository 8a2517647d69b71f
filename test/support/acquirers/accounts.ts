import { testMerchants, ACCOUNT_ID, AUTO_ACCOUNT_ID } from '../gateway.js';
import type { MerchantsFile } from '../../../src/core/records/directory.js';

export const STRIPE_ENV = { STRIPE_KEY_SHOP1: 'sk_test_stub', STRIPE_WHSEC_SHOP1: 'whsec_stub_secret' };
export const ADYEN_HMAC = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
export const ADYEN_ENV = { ADYEN_KEY_SHOP1: 'AQE_stub_key', ADYEN_HMAC_SHOP1: ADYEN_HMAC };

/**
 * The test merchants with the main account and the auto-capture one routed to Stripe or Adyen (docs/connectors.md's
 * settings) at a stub.
 */
export function acquirerMerchants(code: 'stripe' | 'adyen', apiBase: string): MerchantsFile {
  const file = testMerchants();
  for (const account of file.merchants[0]!.accounts.filter((a) => a.account_id === ACCOUNT_ID || a.account_id === AUTO_ACCOUNT_ID))
    (account as { routing: unknown }).routing = routing(code, apiBase);
  return file;
}

function routing(code: 'stripe' | 'adyen', apiBase: string): Record<string, string> {
  return code === 'stripe'
    ? { connector_code: 'stripe', secret_key_env: 'STRIPE_KEY_SHOP1', webhook_secret_env: 'STRIPE_WHSEC_SHOP1', api_base: apiBase }
    : {
        connector_code: 'adyen',
        api_key_env: 'ADYEN_KEY_SHOP1',
        merchant_account: 'ShopECOM',
        environment: 'TEST',
        hmac_key_env: 'ADYEN_HMAC_SHOP1',
        api_base: apiBase,
      };
}
