import { PayoutStatus as S, type Payout, type PayoutStatus } from '../records/payout.js';

/** Which payout status may follow which; every change goes through `movePayout`. */
const TRANSITIONS: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  [S.PENDING]: [S.PROCESSING, S.FAILED],
  [S.PROCESSING]: [S.COMPLETED, S.FAILED],
  [S.COMPLETED]: [],
  [S.FAILED]: [],
};

export function canMovePayout(from: PayoutStatus, to: PayoutStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isFinalPayout(status: PayoutStatus): boolean {
  return TRANSITIONS[status].length === 0;
}

/** A copy of the payout in its next status, or undefined when the move is not allowed. */
export function movePayout(p: Payout, to: PayoutStatus, now: number, changes: Partial<Payout> = {}): Payout | undefined {
  if (!canMovePayout(p.status, to)) return undefined;
  return { ...p, ...changes, status: to, updated_at: now };
}
