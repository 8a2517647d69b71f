/** The addresses that are not /v1 API calls: hosted pages for shoppers and the operator's endpoints. */
export interface PageSpec {
  method: 'get' | 'post';
  /** Express pattern (`:name` parameters) */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  answer: string;
  type: string;
  status?: number;
}

const session = '/v1/checkout/:merchantId/:sessionId';
const challenge = '/v1/3ds/:merchantId/:transactionId/:secret';

export const PAGES: PageSpec[] = [
  {
    method: 'get',
    path: session,
    operationId: 'cardPage',
    tag: 'Hosted pages',
    summary: 'Hosted card page',
    answer: 'HTML page',
    type: 'text/html',
  },
  {
    method: 'post',
    path: `${session}/pay`,
    operationId: 'cardPageSubmit',
    tag: 'Hosted pages',
    summary: 'Card form submit (form fields, CSRF token)',
    answer: 'HTML page: challenge, result or the card page with its errors',
    type: 'text/html',
  },
  {
    method: 'get',
    path: `${session}/cancel`,
    operationId: 'cancelConfirmPage',
    tag: 'Hosted pages',
    summary: 'Cancel confirmation page',
    answer: 'HTML page',
    type: 'text/html',
  },
  {
    method: 'post',
    path: `${session}/cancel`,
    operationId: 'cancelConfirmSubmit',
    tag: 'Hosted pages',
    summary: 'Cancel the checkout; the shopper goes to cancel_url',
    answer: 'HTML page or redirect',
    type: 'text/html',
  },
  {
    method: 'get',
    path: `${session}/result`,
    operationId: 'resultPage',
    tag: 'Hosted pages',
    summary: 'Result page: sends the shopper to return_url with the signed result in the query',
    answer: 'HTML page',
    type: 'text/html',
  },
  {
    method: 'get',
    path: challenge,
    operationId: 'challengePage',
    tag: 'Hosted pages',
    summary: '3-D Secure challenge page (the issuer_url of a pending payment)',
    answer: 'HTML page',
    type: 'text/html',
  },
  {
    method: 'post',
    path: challenge,
    operationId: 'challengeSubmit',
    tag: 'Hosted pages',
    summary: 'Challenge code submit',
    answer: 'HTML page or redirect to the return address',
    type: 'text/html',
  },
  {
    method: 'get',
    path: '/.well-known/payment-page-scripts.json',
    operationId: 'scriptInventory',
    tag: 'Hosted pages',
    summary: 'The hosted pages’ script inventory: path, SHA-384 and purpose of every script and stylesheet',
    answer: 'JSON inventory',
    type: 'application/json',
  },
  {
    method: 'get',
    path: '/assets/branding.css',
    operationId: 'brandingCss',
    tag: 'Hosted pages',
    summary: 'The accounts’ branding styles for the hosted pages',
    answer: 'CSS',
    type: 'text/css',
  },
  {
    method: 'get',
    path: '/assets/logos/:file',
    operationId: 'brandingLogo',
    tag: 'Hosted pages',
    summary: 'An account’s logo on the hosted pages',
    answer: 'image',
    type: 'image/*',
  },
  {
    method: 'get',
    path: '/',
    operationId: 'frontDoor',
    tag: 'Operating',
    summary: 'Front door page',
    answer: 'HTML page',
    type: 'text/html',
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'healthz',
    tag: 'Operating',
    summary: 'Liveness: 200 while the process runs',
    answer: '{"status":"ok"}',
    type: 'application/json',
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'readyz',
    tag: 'Operating',
    summary: 'Readiness: 200 while the store answers, else 503',
    answer: '{"status":"ready"}',
    type: 'application/json',
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    tag: 'Operating',
    summary: 'Prometheus metrics (callers in METRICS_ALLOW only)',
    answer: 'Prometheus text format',
    type: 'text/plain',
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapi',
    tag: 'Operating',
    summary: 'This document',
    answer: 'OpenAPI 3.1',
    type: 'application/json',
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'docs',
    tag: 'Operating',
    summary: 'This document, rendered',
    answer: 'HTML page',
    type: 'text/html',
  },
  {
    method: 'get',
    path: '/docs/init.js',
    operationId: 'docsScript',
    tag: 'Operating',
    summary: 'The script that starts the renderer on /docs',
    answer: 'JavaScript',
    type: 'text/javascript',
  },
  {
    method: 'get',
    path: '/docs/assets/:name',
    operationId: 'docsAssets',
    tag: 'Operating',
    summary: 'The renderer’s script and styles (swagger-ui-dist)',
    answer: 'JavaScript or CSS',
    type: 'text/javascript',
  },
];

/** The merchant portal (DESIGN 11): pages for people, signed in with a session cookie, forms with a CSRF token. */
const PORTAL: [PageSpec['method'], string, string][] = [
  ['get', '/portal/login', 'Sign-in page'],
  ['post', '/portal/login', 'Sign in (email, password; throttled)'],
  ['post', '/portal/logout', 'Sign out'],
  ['get', '/portal', 'Portal home'],
  ['get', '/portal/payments', 'Payment search'],
  ['get', '/portal/payments.csv', 'Payment search as CSV'],
  ['get', '/portal/payments/:transactionId', 'A payment’s page: amounts, statuses, refunds, notifications, history'],
  ['post', '/portal/payments/:transactionId/capture', 'Capture (admin)'],
  ['post', '/portal/payments/:transactionId/cancel', 'Cancel (admin)'],
  ['post', '/portal/payments/:transactionId/refund', 'Refund (admin)'],
  ['post', '/portal/payments/:transactionId/resend', 'Resend its notifications (admin)'],
  ['get', '/portal/refunds', 'Refund search'],
  ['get', '/portal/subscriptions', 'Subscriptions'],
  ['post', '/portal/subscriptions/:recurringId/cancel', 'Cancel a subscription (admin)'],
  ['get', '/portal/payouts', 'Payouts'],
  ['get', '/portal/account/password', 'Password change page'],
  ['post', '/portal/account/password', 'Change the password'],
];

PAGES.push(
  ...PORTAL.map(([method, path, summary]): PageSpec => {
    const id = `portal ${method} ${path}`.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''));
    const csv = path.endsWith('.csv');
    return {
      method,
      path,
      operationId: id.charAt(0).toLowerCase() + id.slice(1),
      tag: 'Merchant portal',
      summary,
      answer: csv ? 'CSV' : 'HTML page (or a redirect after a form post)',
      type: csv ? 'text/csv' : 'text/html',
    };
  }),
);
