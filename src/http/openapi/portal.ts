import { body, page, seeOther, type PageSpec, type Responses } from './responses.js';
import { PORTAL_LANGUAGES } from '../../i18n/portal.js';
import { LANG_COOKIE } from '../middleware/portal-language.js';

/** How every portal page, sign-in and error pages too, picks its language (http/middleware/portal-language.ts). */
const LANGUAGE_PARAMETERS = [
  {
    name: 'lang',
    in: 'query',
    required: false,
    description: `The page's language, kept in the ${LANG_COOKIE} cookie for the next pages; another value is ignored`,
    schema: { type: 'string', enum: [...PORTAL_LANGUAGES] },
  },
  {
    name: LANG_COOKIE,
    in: 'cookie',
    required: false,
    description: 'The language chosen with lang (a year); without either, Accept-Language, else English',
    schema: { type: 'string', enum: [...PORTAL_LANGUAGES] },
  },
];

/**
 * The merchant portal (docs/portal.md) as the document describes it: pages for people, signed in with the
 * portal_session cookie, every changing form with a one-time token (`_csrf`). Its errors are pages too
 * (http/middleware/error-handler.ts renders them with the same message and request id).
 */
const errorPages = (statuses: number[]): Responses => Object.fromEntries(statuses.map((s) => [s, page(ERROR_PAGE[s] ?? 'An error page')]));

const ERROR_PAGE: Record<number, string> = {
  400: 'The form or filter with its errors, or an unreadable body',
  401: 'The sign-in page again: wrong email or password',
  403: 'Not allowed: no valid form token (_csrf), not signed in (a POST), or a viewer acting',
  404: 'No such record in this merchant’s data',
  409: 'The action conflicts with the record’s state',
  413: 'Body over 64 KB',
  415: 'Body in an encoding or charset the gateway does not read',
  422: 'The action was refused (not enough deposit balance)',
  429: 'Too many wrong passwords: try again later',
  503: 'The store did not answer; try again',
};

const signIn = seeOther('Not signed in, or the session ended: the browser goes to the sign-in page');
/** A page behind the session cookie, read with GET. */
const reading = (extra: Responses = {}): Responses => ({
  200: page('The page'),
  303: signIn,
  ...errorPages([400, 503]),
  ...extra,
});
/** A form post behind the session cookie: acted on once, then back to a page (303). */
const acting = (extra: Responses = {}): Responses => ({
  303: seeOther('Done (or already done by this form token): back to the page, where the server’s notice shows the result'),
  ...errorPages([400, 403, 404, 413, 415, 503]),
  ...extra,
});

const PORTAL: [PageSpec['method'], string, string, string, Responses][] = [
  [
    'get',
    '/portal/login',
    'Sign-in page',
    'Sets the sign-in form’s own token cookie (portal_login).',
    { 200: page('The sign-in page'), ...errorPages([503]) },
  ],
  [
    'post',
    '/portal/login',
    'Sign in',
    'email, password and the form token; wrong guesses are counted per user and address before they are checked.',
    {
      303: seeOther('Signed in: sets portal_session and goes to the payments'),
      ...errorPages([400, 401, 403, 413, 415, 429, 503]),
    },
  ],
  [
    'post',
    '/portal/logout',
    'Sign out',
    'Ends the session; signing out twice answers what the first did.',
    { 303: seeOther('Signed out: the sign-in page'), ...errorPages([400, 403, 413, 415, 503]) },
  ],
  [
    'get',
    '/portal/invite/:merchantId/:token',
    'Invitation page',
    'An invited user’s one-time link (docs/operators.md): the form that sets their password, valid 24 hours.',
    { 200: page('The form'), 404: page('The link is not valid, already used, or lapsed'), ...errorPages([503]) },
  ],
  [
    'post',
    '/portal/invite/:merchantId/:token',
    'Set the invited user’s password',
    'new_password (at least 12 characters); spends the link.',
    {
      303: seeOther('Set: the sign-in page'),
      400: page('The form again with its error'),
      404: page('The link is not valid, already used, or lapsed'),
      ...errorPages([413, 415, 503]),
    },
  ],
  [
    'get',
    '/portal',
    'Portal home',
    'Volume, payments, approval rate, refunds and disputes per day and currency over `days` (7, 30 or 90), from counters kept as payments change.',
    reading(),
  ],
  ['get', '/portal/payments', 'Payment search', 'By order_no, transaction_id, status, dates and amounts; paged.', reading()],
  [
    'get',
    '/portal/payments.csv',
    'Payment search as CSV',
    'The filtered list, every page of it, streamed; formulas defused.',
    { ...reading(), 200: body('CSV (text/csv)', 'text/csv') },
  ],
  [
    'get',
    '/portal/payments/:transactionId',
    'A payment’s page',
    'Amounts, statuses, refunds, notifications and history, with the actions the user may take.',
    reading(errorPages([404])),
  ],
  ['post', '/portal/payments/:transactionId/capture', 'Capture (admin)', 'Through the same core as /v1/capture.', acting()],
  ['post', '/portal/payments/:transactionId/cancel', 'Cancel (admin)', 'Through the same core as /v1/cancel.', acting()],
  ['post', '/portal/payments/:transactionId/refund', 'Refund (admin)', 'Through the same core as /v1/refund.', acting()],
  ['post', '/portal/payments/:transactionId/resend', 'Resend its notifications (admin)', 'As /v1/notifications/resend.', acting()],
  ['get', '/portal/refunds', 'Refund search', 'By refund_reference_id, or the latest refunds.', reading()],
  ['get', '/portal/subscriptions', 'Subscriptions', 'The merchant’s subscription contracts.', reading()],
  ['post', '/portal/subscriptions/:recurringId/cancel', 'Cancel a subscription (admin)', 'As /v1/cancelsubscription.', acting()],
  ['get', '/portal/payouts', 'Payouts', 'Deposit balances and a payout by request_id.', reading()],
  ['get', '/portal/disputes', 'Open disputes', 'The merchant’s open disputes, the earliest due date first.', reading()],
  [
    'get',
    '/portal/disputes/:disputeId',
    'A dispute’s page',
    'Its facts and story, with the evidence and accept forms for admins.',
    reading(errorPages([404])),
  ],
  ['post', '/portal/disputes/:disputeId/evidence', 'Save or submit evidence (admin)', 'As /v1/disputeEvidence (submit 0 or 1).', acting()],
  ['post', '/portal/disputes/:disputeId/accept', 'Accept a dispute (admin)', 'As /v1/disputeAccept.', acting()],
  ['get', '/portal/account/password', 'Password change page', 'The signed-in user’s own password.', reading()],
  [
    'post',
    '/portal/account/password',
    'Change the password',
    'Ends the user’s other sessions.',
    acting({ 400: page('The form again with its errors (wrong current password, weak new one)'), ...errorPages([429]) }),
  ],
];

export const PORTAL_PAGES: PageSpec[] = PORTAL.map(([method, path, summary, description, responses]): PageSpec => {
  const id = `portal ${method} ${path}`.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''));
  const open = path === '/portal/login' || path === '/portal/logout' || path.startsWith('/portal/invite/');
  return {
    method,
    path,
    operationId: id.charAt(0).toLowerCase() + id.slice(1),
    tag: 'Merchant portal',
    summary,
    description,
    responses,
    parameters: LANGUAGE_PARAMETERS,
    ...(open ? {} : { security: 'portalSession' as const }),
  };
});
