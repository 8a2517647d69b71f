import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import { GatewayError } from '../kernel/errors.js';
import type { Payout } from '../records/payout.js';

/** EUR-area countries whose LOCAL transfers in EUR clear through SEPA. */
const SEPA = new Set('AT BE CY DE EE ES FI FR GR HR IE IT LT LU LV MT NL PT SI SK'.split(' '));
const LOCAL_SYSTEMS: Record<string, string> = {
  'US:USD': 'ACH',
  'GB:GBP': 'FASTER_PAYMENTS',
  'CN:CNY': 'CNAPS',
  'HK:HKD': 'FPS',
  'AU:AUD': 'BECS',
  'SG:SGD': 'FAST',
  'IN:INR': 'NEFT',
  'BR:BRL': 'PIX',
  'MX:MXN': 'SPEI',
  'CA:CAD': 'EFT',
  'JP:JPY': 'ZENGIN',
};

/** The clearing system a transfer goes through: SWIFT for SWIFT, the country's scheme for LOCAL. */
export function localClearingSystem(method: 'SWIFT' | 'LOCAL', bankCountry: string, currency: string): string {
  if (method === 'SWIFT') return 'SWIFT';
  if (currency === 'EUR' && SEPA.has(bankCountry)) return 'SEPA';
  return LOCAL_SYSTEMS[`${bankCountry}:${currency}`] ?? 'LOCAL';
}

/** The account's payout named by request_id and/or transaction_id (both must name the same one). */
export async function findPayout(
  deps: Pick<CoreDeps, 'store'>,
  account: Account,
  by: { request_id: string; transaction_id: string },
): Promise<Payout> {
  const m = account.merchant_id;
  let payout: Payout | undefined;
  if (by.transaction_id) {
    const found = await deps.store.getPayout(m, by.transaction_id);
    payout = found && found.account_id === account.account_id ? found : undefined;
    if (!payout) throw new GatewayError('NOT_FOUND', 'transaction_id: no payout of this account has this transaction_id', 'transaction_id');
    if (by.request_id && payout.request_id !== by.request_id) {
      throw new GatewayError('NOT_FOUND', 'request_id: does not belong to the payout named by transaction_id', 'request_id');
    }
    return payout;
  }
  payout = await deps.store.findPayoutByRequest(m, account.account_id, by.request_id);
  if (!payout) throw new GatewayError('NOT_FOUND', 'request_id: no payout of this account has this request_id', 'request_id');
  return payout;
}
