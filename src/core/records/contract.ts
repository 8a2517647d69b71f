import type { Payment } from './payment.js';
import type { Contract, ContractInterval, SubscriptionTerms } from './contract-record.js';
import { spacedDate } from '../kernel/dates.js';

export type * from './contract-record.js';

/** A period's charge is created (as a pending payment the merchant can see and cancel) this long before it is due. */
export const CHARGE_LEAD_MS = 3_600_000;

/** When the scheduler should create the charge due at `dueTime`. */
export function chargeQueueAt(dueTime: number): number {
  return dueTime - CHARGE_LEAD_MS;
}

/** The time `n` intervals after `anchor`; months and years keep the day, clamped to the month's end. */
export function addIntervals(anchor: number, interval: ContractInterval, count: number, n: number): number {
  const steps = count * n;
  const d = new Date(anchor);
  switch (interval) {
    case 'day':
      return anchor + steps * 86_400_000;
    case 'week':
      return anchor + steps * 7 * 86_400_000;
    case 'month':
    case 'year': {
      const months = interval === 'month' ? steps : steps * 12;
      const y = d.getUTCFullYear();
      const m = d.getUTCMonth() + months;
      const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
      return Date.UTC(
        y,
        m,
        Math.min(d.getUTCDate(), lastDay),
        d.getUTCHours(),
        d.getUTCMinutes(),
        d.getUTCSeconds(),
        d.getUTCMilliseconds(),
      );
    }
  }
}

/** Amount of charge number `n` (1 = the first payment): promotion charges at the payment's amount. */
export function chargeAmount(contract: Contract, n: number): number {
  return n <= contract.promotion_cycle ? contract.promotion_amount : contract.contract_amount;
}

/** End of the contract as epoch ms (end of contract_end's day, UTC), or null when open-ended. */
function contractEndAt(contractEnd: string): number | null {
  if (!contractEnd) return null;
  const [date, time] = contractEnd.split(' ');
  const [y, m, d] = date!.split('-').map(Number) as [number, number, number];
  if (time) {
    const [hh, mm, ss] = time.split(':').map(Number) as [number, number, number];
    return Date.UTC(y, m - 1, d, hh, mm, ss);
  }
  return Date.UTC(y, m - 1, d, 23, 59, 59, 999);
}

/**
 * The one bound on every charge of a contract, scheduled or retried: charge `n` at `at` is made only when `n`
 * is within `billing_cycle` and `at` is not after `contract_end`.
 */
export function chargeAllowed(c: Pick<Contract, 'billing_cycle' | 'contract_end'>, n: number, at: number): boolean {
  if (n > c.billing_cycle) return false;
  const end = contractEndAt(c.contract_end);
  return end === null || at <= end;
}

/** When charge number `n` is due, or null when the contract has no such charge. */
export function dueAt(
  c: Pick<Contract, 'created_at' | 'interval' | 'interval_count' | 'billing_cycle' | 'contract_end'>,
  n: number,
): number | null {
  if (n > c.billing_cycle) return null;
  const at = addIntervals(c.created_at, c.interval, c.interval_count, n - 1);
  return chargeAllowed(c, n, at) ? at : null;
}

/** The contract a payment's subscription block creates once the payment is approved; charge 1 is that payment. */
export function newContract(payment: Payment, terms: SubscriptionTerms, recurringId: string, vaultToken: string, now: number): Contract {
  const base = {
    created_at: now,
    interval: terms.interval,
    interval_count: terms.interval_count,
    billing_cycle: terms.billing_cycle,
    contract_end: terms.contract_end,
  };
  const next = dueAt(base, 2);
  return {
    version: 0,
    recurring_id: recurringId,
    merchant_id: payment.merchant_id,
    account_id: payment.account_id,
    contract: terms.contract,
    contract_name: terms.contract_name,
    currency: payment.currency,
    promotion_amount: payment.amount,
    contract_amount: terms.contract_amount,
    interval: terms.interval,
    interval_count: terms.interval_count,
    billing_cycle: terms.billing_cycle,
    promotion_cycle: terms.promotion_cycle,
    contract_start: terms.contract_start,
    contract_end: terms.contract_end,
    price_id: terms.price_id,
    vault_token: vaultToken,
    status: next === null ? 'Completed' : 'Active',
    charges_made: 1,
    next_charge_at: next,
    failed_attempts: 0,
    origin_transaction_id: payment.transaction_id,
    order_no: payment.order_no,
    notify_url: payment.notify_url,
    created_at: now,
    updated_at: now,
  };
}

/** recurring_deduction_period and recurring_deduction_time of the authorise answer. */
export function deductionSchedule(c: Contract, timezone: string): { period: string; time: string } {
  return {
    period: `${c.interval_count} ${c.interval}`,
    time: c.next_charge_at === null ? '' : spacedDate(c.next_charge_at, timezone),
  };
}

/** A contract's next charge in the store's due queue (ChangeSet.due): the subscription charge job takes it then. */
export interface ContractChargeDue {
  queue: 'contract_charge';
  member: string;
  at: number;
}

/**
 * The contract an approved payment's subscription block creates (on approval, or when a held payment is
 * approved on review): the payment now naming it, the contract, and its first charge in the due queue.
 * Undefined when the payment has no subscription, no stored card, or already has its contract.
 */
export function contractOnApproval(
  payment: Payment,
  newRecurringId: () => string,
  now: number,
): { payment: Payment; contract: Contract; due: ContractChargeDue[] } | undefined {
  if (!payment.subscription || !payment.vault_token || payment.recurring_id) return undefined;
  const contract = newContract(payment, payment.subscription, newRecurringId(), payment.vault_token, now);
  const due: ContractChargeDue[] =
    contract.next_charge_at === null
      ? []
      : [{ queue: 'contract_charge', member: contract.recurring_id, at: chargeQueueAt(contract.next_charge_at) }];
  return { payment: { ...payment, recurring_id: contract.recurring_id }, contract, due };
}
