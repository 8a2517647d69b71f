import type { CoreDeps } from '../ports/deps.js';
import type { AuditRecord, PortalSession } from '../records/portal-records.js';

export type { AuditAction, AuditRecord } from '../records/portal-records.js';

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
