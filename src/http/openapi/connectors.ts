import { body, errorResponse, type PageSpec } from './responses.js';

/** The acquirers' webhooks (docs/connectors.md): called by Stripe and Adyen, not by merchants. */
const webhook = (acquirer: string, path: string, operationId: string, check: string, acknowledged: string): PageSpec => ({
  method: 'post',
  path,
  operationId,
  tag: 'Operating',
  summary: `${acquirer} webhook`,
  description:
    `${acquirer}’s events for the accounts routed to it, verified with ${check} against each account’s secret. An event ` +
    'already applied, or of a type the gateway does not use, is acknowledged and changes nothing.',
  responses: {
    200: body(acknowledged, 'text/plain'),
    400: errorResponse(400, `The signature matches no ${acquirer} account (or the body is not ${acquirer}’s)`),
    413: errorResponse(413, 'Body over 512 KB'),
    503: errorResponse(503, 'The store did not answer: the acquirer sends the event again'),
  },
});

export const CONNECTOR_PAGES: PageSpec[] = [
  webhook(
    'Stripe',
    '/connectors/stripe/webhook',
    'stripeWebhook',
    'Stripe’s constructEvent (Stripe-Signature, 300 s tolerance)',
    'Acknowledged: applied, duplicate or ignored',
  ),
  webhook('Adyen', '/connectors/adyen/webhook', 'adyenWebhook', 'Adyen’s HmacValidator (each item’s hmacSignature)', '[accepted]'),
];
