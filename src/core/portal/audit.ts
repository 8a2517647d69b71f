import type { CoreDeps } from '../ports/deps.js';
import type { PortalSession } from './sessions.js';

export type AuditAction = 'capture' | 'cancel' | 'refund' | 'resend' | 'subscription_cancel' | 'password_change';

/** What a portal user did, when, to what, and how it ended: shown on the payment's page and kept per merchant. */
export interface AuditRecord {
  id: string;
  at: number;
  merchant_id: string;
  account_id: string;
  email: string;
  action: AuditAction;
  /** the transaction_id, recurring_id or e-mail acted on */
  subject: string;
  /** the action's inputs as the user gave them (amounts as two-decimal text, the refund reason, notify_id) */
  detail: Record<string, string>;
  ok: boolean;
  /** the result as the API would word it (`V0000:Success`, `V3002:Refund amount exceeds ...`) */
  result: string;
}

/** Records one action after the core has answered it (the core's own commit is the operation's truth). */
export async function recordAction(
  deps: CoreDeps,
  session: PortalSession,
  entry: Pick<AuditRecord, 'account_id' | 'action' | 'subject' | 'detail' | 'ok' | 'result'>,
): Promise<AuditRecord> {
  const record: AuditRecord = {
    id: deps.ids.opaque('audit'),
    at: deps.clock.now(),
    merchant_id: session.merchant_id,
    email: session.email,
    ...entry,
  };
  await deps.store.commit({ merchantId: session.merchant_id, audit: [record] });
  deps.log.info(
    { merchant_id: record.merchant_id, user: record.email, action: record.action, subject: record.subject, ok: record.ok },
    'portal action',
  );
  return record;
}
