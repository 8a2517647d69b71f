import type { Response } from 'express';
import { formatAmount } from '../../core/kernel/money.js';
import { spacedDate } from '../../core/kernel/dates.js';
import { STATUS_TEXT } from '../../core/payments/transitions.js';
import type { PaymentStatus } from '../../core/payments/payment.js';
import type { PortalSession } from '../../core/portal/sessions.js';
import { portalTranslator } from '../portal/messages.js';

const t = portalTranslator();

/** Helpers the portal's views share: translation, amounts, times in the gateway's zone, status names. */
export function portalHelpers(timezone: string) {
  return {
    t,
    lang: 'en',
    amount: (minor: number) => formatAmount(minor),
    time: (ms: number | null | undefined) => (ms ? `${spacedDate(ms, timezone)}` : ''),
    timezone,
    statusText: (s: PaymentStatus) => `${STATUS_TEXT[s] ?? s} (${s})`,
  };
}

/** Renders a portal page (views/portal/<view>.ejs) with the signed-in user (if any) and a maker of one-time form tokens. */
export function renderPortal(res: Response, timezone: string, view: string, locals: Record<string, unknown>, status = 200): void {
  const session = res.locals.portalSession as PortalSession | undefined;
  res.status(status).render(`portal/${view}`, {
    ...portalHelpers(timezone),
    session,
    formToken: (res.locals.formToken as (() => string) | undefined) ?? (() => ''),
    errors: {},
    values: {},
    notice: undefined,
    ...locals,
  });
}
