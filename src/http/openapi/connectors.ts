import { body, errorResponse, type PageSpec } from './responses.js';

/** The acquirers' webhooks (docs/connectors.md): called by Stripe and Adyen, not by merchants. */
const webhook = (acquirer: string, path: string, operationId: string, check: string, acknowledged: string, which: string): PageSpec => ({
  method: 'post',
  path,
  operationId,
  tag: 'Operating',
  summary: `${acquirer} webhook (${which})`,
  description:
    `${acquirer}’s events for ${which}, verified with ${check} against that account’s secret only. An event ` +
    'already applied, of a type the gateway does not use, or naming no payment of the account is acknowledged and changes nothing.',
  responses: {
    200: body(acknowledged, 'text/plain'),
    400: errorResponse(
      400,
      `The signature does not match the account’s secret, the address names no ${acquirer} account (or the shared address serves several), or the signed event is not one the gateway can read`,
    ),
    413: errorResponse(413, 'Body over 512 KB'),
    503: errorResponse(503, 'The store did not answer: the acquirer sends the event again'),
  },
});

const STRIPE = ['Stripe’s constructEvent (Stripe-Signature, 300 s tolerance)', 'Acknowledged: applied, duplicate or ignored'] as const;
const ADYEN = ['Adyen’s HmacValidator (each item’s hmacSignature)', '[accepted]'] as const;

export const CONNECTOR_PAGES: PageSpec[] = [
  webhook('Stripe', '/connectors/stripe/webhook/:account_id', 'stripeAccountWebhook', ...STRIPE, 'one account (its address)'),
  webhook(
    'Stripe',
    '/connectors/stripe/webhook/:merchant_id/:account_id',
    'stripeMerchantAccountWebhook',
    ...STRIPE,
    'one account of a merchant',
  ),
  webhook('Stripe', '/connectors/stripe/webhook', 'stripeWebhook', ...STRIPE, 'the only Stripe account of the gateway'),
  webhook('Adyen', '/connectors/adyen/webhook/:account_id', 'adyenAccountWebhook', ...ADYEN, 'one account (its address)'),
  webhook(
    'Adyen',
    '/connectors/adyen/webhook/:merchant_id/:account_id',
    'adyenMerchantAccountWebhook',
    ...ADYEN,
    'one account of a merchant',
  ),
  webhook('Adyen', '/connectors/adyen/webhook', 'adyenWebhook', ...ADYEN, 'the only Adyen account of the gateway'),
];
