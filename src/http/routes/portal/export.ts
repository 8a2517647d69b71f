import { Router } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import { scanPayments } from '../../../core/portal/search.js';
import { formatAmount } from '../../../core/kernel/money.js';
import { spacedDate } from '../../../core/kernel/dates.js';
import type { Payment } from '../../../core/records/payment.js';
import { GatewayError } from '../../../core/kernel/errors.js';
import { sessionOf } from '../../middleware/portal.js';
import { readPaymentFilter } from './filters.js';

export const CSV_COLUMNS = [
  'transaction_id',
  'order_no',
  'account_id',
  'created',
  'currency',
  'amount',
  'captured_amount',
  'refunded_amount',
  'payment_status',
  'result_info',
  'card',
  'risk_action',
  'threeds_result',
  'source',
] as const;

/** One CSV field: quoted when needed, and a leading = + - @ defused so a spreadsheet never runs it as a formula. */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csvRow(p: Payment, timezone: string): string {
  const cells = [
    p.transaction_id,
    p.order_no,
    p.account_id,
    spacedDate(p.created_at, timezone),
    p.currency,
    formatAmount(p.amount),
    formatAmount(p.captured),
    formatAmount(p.refunded),
    p.status,
    p.result_code,
    p.card?.masked ?? '',
    p.risk.action,
    p.threeds.result,
    p.source,
  ];
  return `${cells.map(csvField).join(',')}\r\n`;
}

/** GET /portal/payments.csv: the filtered list, every page of it, streamed row by row as it is read. */
export function portalExportRouter(deps: CoreDeps): Router {
  const router = Router();
  router.get('/portal/payments.csv', async (req, res) => {
    const session = sessionOf(res);
    const read = readPaymentFilter(deps, session, req);
    if (!read.ok) {
      const [field, message] = Object.entries(read.errors)[0]!;
      throw new GatewayError('INVALID_FIELD', `${field}: ${message}`, field);
    }
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="payments-${session.merchant_id}.csv"`);
    res.write(`${CSV_COLUMNS.join(',')}\r\n`);
    let rows = 0;
    for await (const { payment } of scanPayments(deps, session.merchant_id, read.filter)) {
      if (!payment) continue;
      // respect back-pressure: a slow download does not pile the whole list up in memory
      if (!res.write(csvRow(payment, deps.timezone))) {
        await new Promise((resolve) => {
          res.once('drain', resolve);
          res.once('close', resolve);
        });
      }
      if (res.destroyed) return;
      rows++;
    }
    deps.log.info({ merchant_id: session.merchant_id, user: session.email, rows }, 'portal CSV export');
    res.end();
  });
  return router;
}
