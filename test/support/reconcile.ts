import type { TestGateway } from './gateway.js';
import { ACCOUNT_ID, MERCHANT_ID } from './gateway.js';
import { jobOf } from './jobs.js';
import { scrape, valueOf } from './metrics.js';
import type { ReconcilePass } from '../../src/core/records/reconcile-records.js';

/**
 * Runs the gateway's reconciliation job (as main runs it) until a pass of the account has run to its end: the
 * one under way, or a new one when the last has finished (due once PASS_EVERY_MS has passed since it began).
 */
export async function reconcilePass(gw: TestGateway, accountId = ACCOUNT_ID, rounds = 200): Promise<ReconcilePass> {
  const job = jobOf(gw, 'reconciliation');
  const [before] = await gw.deps.store.getReconcilePasses(MERCHANT_ID, [accountId]);
  for (let i = 0; i < rounds; i++) {
    await job.runOnce();
    const [pass] = await gw.deps.store.getReconcilePasses(MERCHANT_ID, [accountId]);
    const fresh = !before || before.phase !== 'done' || (pass && pass.started_at > before.started_at);
    if (pass?.phase === 'done' && pass.lease_until === undefined && fresh) return pass;
  }
  throw new Error(`no reconciliation pass of ${accountId} ended in ${rounds} runs`);
}

/** gateway_reconciliation_discrepancies_total{connector,kind} as /metrics shows it (0 before the first). */
export async function discrepancyMetric(gw: TestGateway, connector: string, kind: string): Promise<number> {
  return valueOf(await scrape(gw), 'gateway_reconciliation_discrepancies_total', { connector, kind }) ?? 0;
}
