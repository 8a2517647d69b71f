import { body, errorResponse, ERROR_TEXT, json, merged, NOT_FOUND, page, seeOther, type PageSpec, type Responses } from './responses.js';
import { PORTAL_PAGES } from './portal.js';
import { CONNECTOR_PAGES } from './connectors.js';
import { CHECKOUT_PAGES } from '../calls/payments.js';

export type { PageSpec } from './responses.js';

const session = CHECKOUT_PAGES;
const challenge = '/v1/3ds/:merchantId/:transactionId/:secret';

/** An address with a name in it that names nothing answers as any unknown address. */
const notFound: Responses = { 404: NOT_FOUND };

/** A path segment that cannot be decoded (a stray %) names no page: the JSON error of an unknown address. */
const undecodable = errorResponse(404, 'A path segment that cannot be decoded');

/** What every hosted page of a checkout session may answer instead of itself: the session's stage decides. */
const stage: Responses = {
  303: seeOther('The session is past this page: the shopper goes to the card page, the challenge or the result page'),
  404: merged(page('No such checkout session (a notice page)'), undecodable),
  409: page('Another payment took this order_no (a notice page)'),
  410: page('The session expired (a notice page)'),
  403: page('The merchant was suspended while the page was open: the payment can no longer be made (a notice page)'),
  503: errorResponse(503, ERROR_TEXT[503]!),
};

/** What the gateway answers a form post before the page sees it: an unreadable, oversized or unread body. */
const formPost: Responses = {
  400: { $ref: '#/components/responses/UnreadableBody' },
  413: { $ref: '#/components/responses/BodyTooLarge' },
  415: { $ref: '#/components/responses/UnsupportedBody' },
};

/** Responses of several sets together, media types of the same status merged. */
function all(...sets: Responses[]): Responses {
  const out: Responses = {};
  for (const set of sets) for (const [status, r] of Object.entries(set)) out[Number(status)] = merged(out[Number(status)], r);
  return out;
}

const hosted = (p: Omit<PageSpec, 'tag'>): PageSpec => ({ ...p, tag: 'Hosted pages' });
const operating = (p: Omit<PageSpec, 'tag'>): PageSpec => ({ ...p, tag: 'Operating' });

export const PAGES: PageSpec[] = [
  hosted({
    method: 'get',
    path: session,
    operationId: 'cardPage',
    summary: 'Hosted card page',
    description: 'The card form of a checkout session (the checkout_url); a session past this step sends the shopper on.',
    responses: all({ 200: page('The card page') }, stage),
  }),
  hosted({
    method: 'post',
    path: `${session}/pay`,
    operationId: 'cardPageSubmit',
    summary: 'Card form submit',
    description: 'Form fields of the card page (card, expiry, security code, cardholder, browser data).',
    responses: all(
      {
        422: page(
          'The card page again with its errors (invalid or refused card, passed expiry), or a stored order that is no longer valid',
        ),
      },
      stage,
      formPost,
    ),
  }),
  hosted({
    method: 'post',
    path: `${session}/saved-cards/remove`,
    operationId: 'savedCardRemove',
    summary: 'Remove a saved card from the card page',
    description: 'Form field card_id: the session’s proven shopper removes one of its saved cards; back to the card page.',
    responses: all(stage, formPost),
  }),
  hosted({
    method: 'get',
    path: `${session}/cancel`,
    operationId: 'cancelConfirmPage',
    summary: 'Cancel confirmation page',
    description: 'Asks the shopper to confirm; a GET never cancels (link prefetchers and scanners follow links).',
    responses: all({ 200: page('The confirmation page') }, stage),
  }),
  hosted({
    method: 'post',
    path: `${session}/cancel`,
    operationId: 'cancelConfirmSubmit',
    summary: 'Cancel the checkout',
    description: 'Cancels an open session; the shopper goes to the result page, which sends them to cancel_url.',
    responses: all(stage, formPost),
  }),
  hosted({
    method: 'get',
    path: `${session}/result`,
    operationId: 'resultPage',
    summary: 'Result page',
    description: 'Sends the shopper to return_url (or cancel_url) with the signed result in the query.',
    responses: all({ 200: page('The result page') }, stage),
  }),
  hosted({
    method: 'get',
    path: challenge,
    operationId: 'challengePage',
    summary: '3-D Secure challenge page',
    description:
      'The sandbox issuer’s challenge (the issuer_url of a pending payment); on an acquirer that runs its own challenge page (Stripe, Adyen) it hands the shopper over to it; a finished one shows its result.',
    responses: {
      200: page('The challenge page, or the result of a finished challenge'),
      303: seeOther(
        'The acquirer’s own challenge page (Stripe, Adyen), or for a finished checkout challenge the checkout’s return address',
      ),
      404: merged(page('No pending challenge under that address (a notice page)'), undecodable),
      503: errorResponse(503, ERROR_TEXT[503]!),
    },
  }),
  hosted({
    method: 'post',
    path: challenge,
    operationId: 'challengeSubmit',
    summary: 'Challenge code submit',
    description: 'The code the shopper typed; the payment is approved or declined and the result follows.',
    responses: all(
      {
        200: page('The result page, sending the shopper to the return address'),
        303: seeOther('A checkout payment: the shopper goes to the checkout’s return address'),
        404: merged(page('No pending challenge under that address (a notice page)'), undecodable),
        503: errorResponse(503, ERROR_TEXT[503]!),
      },
      formPost,
    ),
  }),
  hosted({
    method: 'post',
    path: `${challenge}/cancel`,
    operationId: 'challengeCancel',
    summary: 'Cancel the challenge',
    description:
      'The shopper gives up on the challenge: the payment fails (4300, threeds_result "authentication not completed (cancelled by the shopper)") with its notification, and the result follows as after an answer.',
    responses: all(
      {
        200: page('The result page, sending the shopper to the return address'),
        303: seeOther(
          'A checkout payment: the shopper goes to the checkout’s return address (or back to the challenge while an answer holds it)',
        ),
        404: merged(page('No pending challenge under that address (a notice page)'), undecodable),
        503: errorResponse(503, ERROR_TEXT[503]!),
      },
      formPost,
    ),
  }),
  ...(['get', 'post'] as const).map((method) =>
    hosted({
      method,
      path: `${challenge}/return`,
      operationId: method === 'get' ? 'challengeReturn' : 'challengeReturnPost',
      summary: 'Return from the acquirer’s challenge page',
      description:
        'Where Stripe (payment_intent in the query) or Adyen (redirectResult, in the query or a form post) sends the shopper back after its own 3-D Secure page; the acquirer’s result settles the payment, once, and its result follows.',
      responses: all(
        {
          200: page('The result page, sending the shopper to the return address'),
          303: seeOther('A checkout payment: the checkout’s return address; a challenge of the sandbox issuer: its own page'),
          404: merged(page('No pending challenge under that address, or an intent that is not the payment’s (a notice page)'), undecodable),
          503: errorResponse(503, ERROR_TEXT[503]!),
        },
        method === 'post' ? formPost : {},
      ),
    }),
  ),
  hosted({
    method: 'get',
    path: '/.well-known/payment-page-scripts.json',
    operationId: 'scriptInventory',
    summary: 'Script inventory of the hosted pages',
    description: 'Path, SHA-384 and purpose of every script and stylesheet the hosted pages load (PCI DSS 4.0 6.4.3).',
    responses: { 200: json('The inventory', 'ScriptInventory') },
  }),
  hosted({
    method: 'get',
    path: '/assets/branding.css',
    operationId: 'brandingCss',
    summary: 'Branding styles',
    description: 'The accounts’ accent colours for the hosted pages, generated from the merchants file.',
    responses: { 200: body('CSS', 'text/css') },
  }),
  hosted({
    method: 'get',
    path: '/assets/logos/:file',
    operationId: 'brandingLogo',
    summary: 'An account’s logo',
    description: 'The logo shown on the account’s hosted pages.',
    responses: { 200: body('The image', 'image/*'), ...notFound },
  }),
  hosted({
    method: 'get',
    path: '/assets/operator/:file',
    operationId: 'operatorLogo',
    summary: 'The operator’s logo',
    description: 'The logo of OPERATOR_LOGO_FILE, beside the operator’s name on every hosted page; its name changes with its content.',
    responses: { 200: body('The image', 'image/*'), ...notFound },
  }),
  hosted({
    method: 'get',
    path: '/public/:file',
    operationId: 'pageScript',
    summary: 'A script or stylesheet of the pages',
    description: 'The files of the scripts inventory, and embed.js, the script merchants load to mount the checkout in an iFrame.',
    responses: {
      200: body('JavaScript or CSS', 'text/javascript', 'application/javascript', 'text/css'),
      304: { description: 'Not modified since the copy the browser has (If-Modified-Since, If-None-Match)' },
      ...notFound,
    },
  }),
  operating({
    method: 'get',
    path: '/',
    operationId: 'frontDoor',
    summary: 'Front door page',
    description: 'Says what runs and on which store, and links the documentation, the portal and the health checks.',
    responses: { 200: page('The front door page') },
  }),
  operating({
    method: 'get',
    path: '/healthz',
    operationId: 'healthz',
    summary: 'Liveness',
    description: '200 while the process runs.',
    responses: { 200: json('The process runs', 'Health') },
  }),
  operating({
    method: 'get',
    path: '/readyz',
    operationId: 'readyz',
    summary: 'Readiness',
    description:
      '200 while the store answers (within 1 s) and takes a write, the event loop keeps up (99th percentile of its delay since the previous probe at most 500 ms), and the process is not shutting down (draining), else 503 saying which.',
    responses: {
      200: json('Ready for traffic', 'Ready'),
      503: json('The store does not answer or refuses writes, the event loop lags, or the process is shutting down', 'NotReady'),
    },
  }),
  operating({
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    description: 'Prometheus text for callers in METRICS_ALLOW (addresses or CIDR; loopback by default); not served when metrics are off.',
    responses: {
      200: body('Prometheus text format', 'text/plain'),
      403: errorResponse(403, 'The caller is not in METRICS_ALLOW'),
      404: { $ref: '#/components/responses/NotFound' },
    },
  }),
  operating({
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapi',
    summary: 'This document',
    description: 'This OpenAPI 3.1 document, generated from the zod schemas that check the requests.',
    responses: { 200: json('The OpenAPI document', 'OpenApiDocument') },
  }),
  operating({
    method: 'get',
    path: '/docs',
    operationId: 'docs',
    summary: 'This document, rendered',
    description: 'Swagger UI, served by the gateway itself under a strict Content-Security-Policy.',
    responses: { 200: page('The rendering page') },
  }),
  operating({
    method: 'get',
    path: '/docs/init.js',
    operationId: 'docsScript',
    summary: 'The renderer’s start script',
    description: 'Starts Swagger UI on /openapi.json (a file of its own: the page allows no inline script).',
    responses: { 200: body('JavaScript', 'text/javascript') },
  }),
  operating({
    method: 'get',
    path: '/docs/assets/:name',
    operationId: 'docsAssets',
    summary: 'The renderer’s files',
    description: 'swagger-ui-bundle.js and swagger-ui.css from swagger-ui-dist; no other name.',
    responses: { 200: body('JavaScript or CSS', 'text/javascript', 'text/css'), ...notFound },
  }),
  ...PORTAL_PAGES,
  ...CONNECTOR_PAGES,
];
