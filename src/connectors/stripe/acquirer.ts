import { z } from 'zod';
import { apiBase, envName, type AcquirerKind } from '../acquirers.js';
import { StripeConnector } from './connector.js';

const stripeRouting = z.object({
  connector_code: z.literal('stripe'),
  secret_key_env: envName,
  webhook_secret_env: envName,
  api_base: apiBase,
});

/** Stripe (docs/connectors.md): an account's secret key and webhook secret, named by environment variables. */
export const stripeAcquirer: AcquirerKind<z.infer<typeof stripeRouting>> = {
  code: 'stripe',
  displayName: 'Stripe',
  routing: stripeRouting,
  make(r, secret, journal, ctx) {
    const lag = ctx.env.STRIPE_SEARCH_LAG_SECONDS;
    const settings = {
      ...(lag !== undefined && /^\d+$/.test(lag) ? { searchLagMs: Number(lag) * 1000 } : {}),
      secretKey: secret(r.secret_key_env),
      webhookSecret: secret(r.webhook_secret_env),
      ...(r.api_base ? { apiBase: r.api_base } : {}),
    };
    return new StripeConnector(settings, journal, ctx.now);
  },
};
