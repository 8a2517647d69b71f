import type { CoreDeps } from '../ports/deps.js';
import type { Payment, RefundRecord } from '../records/payment.js';
import type { Contract } from '../records/contract.js';
import type { DepositBalance, Payout } from '../records/payout.js';

/** The portal's refunds page shows at most this many, newest first. */
export const REFUNDS_SHOWN = 100;

/** A refund as the portal lists it: the record and the payment it belongs to. */
export interface RefundRow {
  p: Payment;
  rec: RefundRecord;
}

/** The merchant's refunds across its accounts, newest first, or the one named by its refund_reference_id. */
export async function portalRefunds(deps: CoreDeps, merchantId: string, wanted: string): Promise<RefundRow[]> {
  const rows: { transactionId: string; refundReferenceId: string; at: number }[] = [];
  for (const a of deps.merchants.accountsOf(merchantId)) {
    if (wanted) {
      const txn = await deps.store.findRefund(merchantId, a.account_id, wanted);
      if (txn) rows.push({ transactionId: txn, refundReferenceId: wanted, at: 0 });
    } else {
      rows.push(...(await deps.store.refundsByDate(merchantId, a.account_id, -Infinity, Infinity, REFUNDS_SHOWN)));
    }
  }
  rows.sort((x, y) => y.at - x.at);
  const shown = rows.slice(0, REFUNDS_SHOWN);
  const payments = await deps.store.getPayments(
    merchantId,
    shown.map((r) => r.transactionId),
  );
  return shown.flatMap((r, i) => {
    const p = payments[i];
    const rec = p?.refunds.find((x) => x.refund_reference_id === r.refundReferenceId);
    return p && rec ? [{ p, rec }] : [];
  });
}

/** A contract of one of the merchant's accounts, or undefined (another merchant's is not found either). */
export async function portalContract(deps: CoreDeps, merchantId: string, recurringId: string): Promise<Contract | undefined> {
  const contract = await deps.store.getContract(merchantId, recurringId);
  return contract && deps.merchants.find(merchantId, contract.account_id) ? contract : undefined;
}

/** A deposit balance as the portal shows it: `opening` when no payout moved it yet (the account's setting). */
export type BalanceRow = DepositBalance & { opening: boolean };

/** The merchant's balances per account and currency, and the payout named by request_id or transaction_id. */
export async function portalPayouts(
  deps: CoreDeps,
  merchantId: string,
  wanted: string,
): Promise<{ balances: BalanceRow[]; payout: Payout | undefined }> {
  const balances: BalanceRow[] = [];
  let payout: Payout | undefined;
  for (const a of deps.merchants.accountsOf(merchantId)) {
    for (const [currency, opening] of Object.entries(a.deposit_balance)) {
      const b = await deps.store.getBalance(merchantId, a.account_id, currency);
      balances.push(
        b
          ? { ...b, opening: false }
          : { version: 0, merchant_id: merchantId, account_id: a.account_id, currency, available: opening, updated_at: 0, opening: true },
      );
    }
    if (wanted && !payout) payout = await deps.store.findPayoutByRequest(merchantId, a.account_id, wanted);
  }
  if (wanted && !payout) {
    const byId = await deps.store.getPayout(merchantId, wanted);
    if (byId && deps.merchants.find(merchantId, byId.account_id)) payout = byId;
  }
  return { balances, payout };
}
