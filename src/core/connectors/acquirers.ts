import { z } from 'zod';
import type { Account } from '../merchants/directory.js';
import type { AcquirerLedger } from '../ports/acquirer-ledger.js';
import { connectorAccountKey, type CardConnector } from '../ports/card-connector.js';
import { AcquirerJournal } from './journal.js';
import { StripeConnector } from './stripe/connector.js';
import { AdyenConnector } from './adyen/connector.js';

/** docs/connectors.md: an account's acquirer settings in `routing`; credentials are named, never written, in the file. */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must name an environment variable');
const apiBase = z.union([z.literal(''), z.url()]).optional();

const stripeRouting = z.object({
  connector_code: z.literal('stripe'),
  secret_key_env: envName,
  webhook_secret_env: envName,
  api_base: apiBase,
});

const adyenRouting = z.object({
  connector_code: z.literal('adyen'),
  api_key_env: envName,
  merchant_account: z.string().min(1),
  environment: z.enum(['TEST', 'LIVE']).default('TEST'),
  hmac_key_env: envName,
  api_base: apiBase,
});

/** The codes whose connectors are made per account, with that account's credentials. */
export const ACQUIRER_CODES = ['stripe', 'adyen'] as const;

export interface AcquirerContext {
  env: Readonly<Record<string, string | undefined>>;
  /** the acquirer ledger of a merchant (its records sit with the merchant's payments) */
  ledgerOf: (merchantId: string) => AcquirerLedger;
  now: () => number;
  /** the gateway's public base address (Adyen's returnUrl) */
  baseUrl: string;
}

/** Thrown for an account whose acquirer settings are incomplete: the message names the account and what is missing. */
export class AcquirerSettingsError extends Error {}

/**
 * Makes each Stripe or Adyen account's own connector from its settings and the environment. Every missing or
 * wrong setting is refused here, at start, naming the account and the field or variable.
 */
export function acquirerConnectors(accounts: Account[], ctx: AcquirerContext): Map<string, CardConnector> {
  const made = new Map<string, CardConnector>();
  for (const account of accounts) {
    const code = account.routing.connector_code;
    if (code !== 'stripe' && code !== 'adyen') continue;
    const name = `account ${account.merchant_id}/${account.account_id}`;
    const secret = (variable: string): string => {
      const value = ctx.env[variable];
      if (!value) throw new AcquirerSettingsError(`${name}: environment variable ${variable} (routing of connector ${code}) is not set`);
      return value;
    };
    const parsed = (code === 'stripe' ? stripeRouting : adyenRouting).safeParse(account.routing);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AcquirerSettingsError(`${name}: routing.${issue.path.join('.')} ${issue.message} (connector ${code}, docs/connectors.md)`);
    }
    const journal = new AcquirerJournal(ctx.ledgerOf(account.merchant_id), code, ctx.now, account.account_id);
    if (parsed.data.connector_code === 'stripe') {
      const r = parsed.data;
      const lag = ctx.env.STRIPE_SEARCH_LAG_SECONDS;
      const settings = {
        ...(lag !== undefined && /^\d+$/.test(lag) ? { searchLagMs: Number(lag) * 1000 } : {}),
        secretKey: secret(r.secret_key_env),
        webhookSecret: secret(r.webhook_secret_env),
        ...(r.api_base ? { apiBase: r.api_base } : {}),
      };
      made.set(connectorAccountKey(account), new StripeConnector(settings, journal, ctx.now));
    } else {
      const r = parsed.data;
      const connector = new AdyenConnector(
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
      made.set(connectorAccountKey(account), connector);
    }
  }
  return made;
}
