import type { Request, Response } from 'express';
import { formatAmount as decimalAmount } from '../../core/kernel/money.js';
import { spacedDate } from '../../core/kernel/dates.js';
import { orderStatusOf, type PaymentStatus, type RiskCheck } from '../../core/records/payment.js';
import type { PortalSession } from '../../core/portal/sessions.js';
import type { DeliveryTry, StoryEvent } from '../../core/portal/story.js';
import { dirOf, formatAmount } from '../../i18n/index.js';
import { codeKey, PORTAL_LANGUAGE_NAMES, PORTAL_LANGUAGES, portalTranslator, type PortalTranslate } from '../../i18n/portal.js';

/** The risk section in words: a sentence for each rule that raised a concern, and how many found nothing. */
export interface RiskReasons {
  flagged: { code: string; status: RiskCheck['status']; sentence: string }[];
  passed: number;
  count: number;
}

type Key = Parameters<PortalTranslate>[0];

/** A code in words: its own key when the catalogue has one, else the catalogue's sentence naming it, else the code. */
function wordOf(t: PortalTranslate, prefix: string, code: string, other?: [Key, string]): string {
  const key = codeKey(prefix, code);
  if (key) return t(key);
  return other ? t(other[0], { [other[1]]: code }) : code;
}

/**
 * Helpers the portal's views share, in the page's language: messages, amounts (Intl, the currency's own
 * fraction digits), times in the gateway's zone, and every code the portal shows (payment statuses, risk
 * rules, notification types, delivery outcomes, portal actions) as words.
 */
export function portalHelpers(timezone: string, lang = 'en') {
  const t = portalTranslator(lang);
  const dir = dirOf(lang);
  /** an id, e-mail, code or time inside a sentence of a right-to-left page, kept left to right (U+2066 ... U+2069) */
  const ltr = (text: string): string => (dir === 'rtl' && text ? `\u2066${text}\u2069` : text);
  const time = (ms: number | null | undefined): string => (ms ? spacedDate(ms, timezone) : '');
  const money = (minor: number, currency: string): string => formatAmount(lang, minor, currency);
  const statusWord = (s: PaymentStatus): string => wordOf(t, 'status', s);
  const notifyType = (type: string): string => wordOf(t, 'notify', type, ['notify.other', 'type']);
  const tryOutcome = (x: DeliveryTry | undefined): string =>
    !x ? '' : x.status !== undefined ? t('delivery.http', { status: x.status }) : (x.error ?? '');
  const actionWord = (action: string): string => wordOf(t, 'action', action, ['action.other', 'action']);

  function eventText(e: StoryEvent): string {
    switch (e.kind) {
      case 'created':
        return t('history.created', { source: wordOf(t, 'source', e.source), amount: money(e.amount, e.currency) });
      case 'status':
        return t('history.status', { from: statusWord(e.from), to: statusWord(e.to) });
      case 'refund':
        return t('history.refund', { reference: ltr(e.reference), amount: money(e.amount, e.currency) });
      case 'queued':
        return t('history.queued', { type: notifyType(e.notify_type) });
      case 'delivery': {
        const d = e.delivery;
        const params = { type: notifyType(d.notify_type), count: d.attempts, outcome: ltr(tryOutcome(d.last)) };
        if (d.state === 'delivered') return t('history.delivered', params);
        if (d.state === 'failed') return t('history.gave_up', params);
        return t('history.failing', { ...params, next: ltr(time(d.next_retry_at)) });
      }
      case 'action':
        return t('history.action', {
          email: ltr(e.email),
          action: actionWord(e.action),
          outcome: t(e.ok ? 'history.done' : 'history.refused'),
          result: ltr(e.result),
        });
      case 'discrepancy':
        return t(`history.discrepancy.${e.what}`, {
          connector: ltr(e.connector),
          acquirer: money(e.acquirer, e.currency),
          gateway: money(e.gateway, e.currency),
        });
    }
  }

  function riskReasons(checks: RiskCheck[]): RiskReasons {
    const flagged = checks
      .filter((c) => c.status !== 'ACCEPT')
      .map((c) => ({ code: c.name, status: c.status, sentence: wordOf(t, 'risk.rule', c.name, ['risk.rule.other', 'code']) }));
    return { flagged, passed: checks.length - flagged.length, count: checks.length };
  }

  return {
    t,
    lang,
    dir,
    timezone,
    /** a decimal amount as a form takes it back (`25.00`), for inputs and hints that name no currency */
    amount: (minor: number) => decimalAmount(minor),
    money,
    time,
    statusWord,
    /** the word and its payment_status code, for the status filter */
    statusText: (s: PaymentStatus) => `${statusWord(s)} (${s})`,
    /** no money moved: declined, cancelled, rejected, 3-D Secure failed, expired */
    notCharged: (s: PaymentStatus) => orderStatusOf(s) === '0',
    notifyType,
    tryOutcome,
    actionWord,
    eventText,
    riskReasons,
    roleWord: (role: string) => wordOf(t, 'role', role),
    /** a code in words where the catalogue has a key for it (`source.checkout`, `threeds.do3DS`), else the code */
    codeWord: (prefix: string, code: string) => wordOf(t, prefix, code),
  };
}

/** The language links: the page itself (a GET; else the payments) in each language the portal speaks. */
function languageLinks(req: Request | undefined): { lang: string; name: string; href: string }[] {
  const url = new URL(req && req.method === 'GET' ? req.originalUrl : '/portal/payments', 'http://portal.invalid');
  return PORTAL_LANGUAGES.map((lang) => {
    url.searchParams.set('lang', lang);
    return { lang, name: PORTAL_LANGUAGE_NAMES[lang] ?? lang, href: `${url.pathname}${url.search}` };
  });
}

/** Renders a portal page (views/portal/<view>.ejs) in the user's language (res.locals.portalLang), with the signed-in user and a maker of one-time form tokens. */
/** Each form field's label, by which the error summary names it (a field's key is never shown to a user). */
const FIELD_LABELS: Record<string, string> = {
  amount: 'payment.capture_amount',
  refund_amount: 'payment.refund_amount',
  refund_reason: 'payment.refund_reason_label',
  email: 'login.email',
  password: 'login.password',
  current_password: 'password.current',
  new_password: 'password.new',
  order_no: 'payments.order_no',
  transaction_id: 'payments.transaction_id',
  status: 'payments.status',
  from: 'payments.from',
  to: 'payments.to',
  min_amount: 'payments.min_amount',
  max_amount: 'payments.max_amount',
  last4: 'payments.last4',
  currency: 'payments.currency',
  account: 'payments.account',
  q: 'payouts.request_id',
  recurring_id: 'subscriptions.recurring_id',
  refund_reference_id: 'refunds.reference',
  days: 'home.range',
};

export function renderPortal(res: Response, timezone: string, view: string, locals: Record<string, unknown>, status = 200): void {
  const session = res.locals.portalSession as PortalSession | undefined;
  const lang = (res.locals.portalLang as string | undefined) ?? 'en';
  res.status(status).render(`portal/${view}`, {
    ...portalHelpers(timezone, lang),
    languageLinks: languageLinks(res.req as Request | undefined),
    session,
    formToken: (res.locals.formToken as (() => string) | undefined) ?? (() => ''),
    errors: {},
    values: {},
    notice: undefined,
    fieldLabels: FIELD_LABELS,
    merchantSuspended: res.locals.merchantSuspended === true,
    ...locals,
  });
}
