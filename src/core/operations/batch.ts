import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import { GatewayError, invalidField } from '../kernel/errors.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from '../kernel/signing.js';
import { applyOperation, type OperationResult, type OrderRef, type PaymentOperation } from './apply.js';

/** The four batch calls, their order arrays and their limits (spec: Batch operations summary). */
export const BATCH_CALLS = {
  capture: { array: 'capture_orders', max: 50 },
  review: { array: 'review_orders', max: 100 },
  cancel: { array: 'cancel_orders', max: 50 },
  refund: { array: 'refund_orders', max: 50 },
} as const;
export type BatchCall = keyof typeof BATCH_CALLS;

/**
 * Runs a batch call: the whole call is refused (and nothing applied) when its array is empty or too long;
 * otherwise each order is found, matched and applied on its own, and one order's failure does not undo
 * another's. Orders of different transactions run concurrently (a batch of 50 costs about one order's
 * latency); orders naming the same transaction run in request order, so their outcome is deterministic.
 */
export async function runBatch<O extends OrderRef, P>(
  deps: CoreDeps,
  account: Account,
  call: BatchCall,
  orders: readonly O[],
  op: PaymentOperation<O, P>,
): Promise<OperationResult<P>[]> {
  const { array, max } = BATCH_CALLS[call];
  if (orders.length === 0) throw invalidField(array, 'must list at least one order');
  if (orders.length > max) throw invalidField(array, `must list at most ${max} orders`);
  const results: OperationResult<P>[] = new Array(orders.length);
  const byTransaction = new Map<string, number[]>();
  orders.forEach((o, i) => {
    const key = String(o.transaction_id);
    byTransaction.set(key, [...(byTransaction.get(key) ?? []), i]);
  });
  let unavailable = 0;
  await Promise.all(
    [...byTransaction.values()].map(async (indexes) => {
      for (const i of indexes) {
        const order = orders[i]!;
        try {
          results[i] = await applyOperation(deps, account, order.transaction_id, op, order, order);
        } catch (err) {
          // one order's failure is that order's result (docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery); a claim it left is finished by recovery
          deps.log.error(
            { transaction_id: order.transaction_id, merchant_id: account.merchant_id, call, err: { message: (err as Error).message } },
            'batch order failed',
          );
          // a claim the store could not confirm may have been written, and then recovery finishes it: V5002,
          // never "nothing was changed"
          if (err instanceof GatewayError && err.code === 'OUTCOME_UNKNOWN') results[i] = { ok: false, failure: 'RECORDING' };
          else {
            unavailable++;
            results[i] = { ok: false, failure: 'STORE_UNAVAILABLE' };
          }
        }
      }
    }),
  );
  // nothing could be done at all: the store is down, and the whole call may be asked again
  if (unavailable === orders.length) throw new GatewayError('STORE_UNAVAILABLE', 'the store is not answering; try again');
  return results;
}

/** The batch answer: processed (`return_status` 1, `OK`) whatever its orders' results, signed. */
export function batchAnswer<R>(account: Account, call: BatchCall, rows: R[]): Record<string, unknown> {
  const head = { merchant_id: account.merchant_id, account_id: account.account_id, return_status: '1', return_message: 'OK' };
  return { ...head, encryption_data: signFields(head, RESPONSE_SIGNATURE_FIELDS.batch, account.sign_key), [BATCH_CALLS[call].array]: rows };
}
