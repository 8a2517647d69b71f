/**
 * How Adyen carries a chargeback through time in the simulation (on the stub's clock), by its notifications:
 * NOTIFICATION_OF_CHARGEBACK (defendable until defensePeriodEndsAt), CHARGEBACK an hour later (the amount
 * debited), then, undefended (the gateway's Adyen connector sends no defence), DISPUTE_DEFENSE_PERIOD_ENDED at
 * the end of the defence period (lost); some are reversed later: CHARGEBACK_REVERSED (won), then
 * SECOND_CHARGEBACK (lost), then PREARBITRATION_WON (won), each `reverseAfterMs` after the one before. An
 * inquiry (REQUEST_FOR_INFORMATION) lapses at the end of its period (ISSUER_RESPONSE_TIMEFRAME_EXPIRED: won).
 */
export interface AdyenDisputeTimes {
  /** which card numbers open a dispute once captured, and of what kind */
  cards: Record<string, { reason: string; inquiry?: true }>;
  /** the defence period: defensePeriodEndsAt */
  defenceMs: number;
  /** how many reversals a chargeback goes through (by its amount, minor units): 0 to 3 */
  reversals: (value: number) => number;
  reverseAfterMs: number;
}

/** What Adyen owes as a notification: its event code, on the payment, with the dispute's reason. */
export interface OwedDisputeNotice {
  eventCode: string;
  paymentPsp: string;
  reason: string;
  defensePeriodEndsAt: string;
}

const STAGES = ['CHARGEBACK_REVERSED', 'SECOND_CHARGEBACK', 'PREARBITRATION_WON'] as const;

/** The chargebacks of the Adyen stub: opened on captured payments of the dispute cards, moved in time. */
export class AdyenDisputeLife {
  private readonly owed: OwedDisputeNotice[] = [];
  private readonly decisions = new Map<string, { decision?: 'won' | 'lost'; inquiry: boolean; amount: number; log: ('won' | 'lost')[] }>();

  constructor(
    private readonly clock: { now(): number; later(ms: number, act: () => void): void },
    private readonly times: AdyenDisputeTimes,
  ) {}

  /** A captured payment of a dispute card is disputed (once). */
  captured(paymentPsp: string, cardNumber: string, value: number): void {
    const plan = this.times.cards[cardNumber];
    if (!plan || this.decisions.has(paymentPsp)) return;
    const ends = new Date(this.clock.now() + this.times.defenceMs).toISOString();
    const notice = (eventCode: string) => this.owed.push({ eventCode, paymentPsp, reason: plan.reason, defensePeriodEndsAt: ends });
    const state: { decision?: 'won' | 'lost'; inquiry: boolean; amount: number; log: ('won' | 'lost')[] } = {
      inquiry: plan.inquiry === true,
      amount: value,
      log: [],
    };
    this.decisions.set(paymentPsp, state);
    if (plan.inquiry) {
      notice('REQUEST_FOR_INFORMATION');
      this.clock.later(this.times.defenceMs, () => {
        state.decision = 'won';
        notice('ISSUER_RESPONSE_TIMEFRAME_EXPIRED');
      });
      return;
    }
    notice('NOTIFICATION_OF_CHARGEBACK');
    this.clock.later(3_600_000, () => notice('CHARGEBACK'));
    const reversals = Math.min(this.times.reversals(value), STAGES.length);
    this.clock.later(this.times.defenceMs, () => {
      state.decision = 'lost';
      state.log.push('lost');
      notice('DISPUTE_DEFENSE_PERIOD_ENDED');
      const next = (i: number) => {
        if (i >= reversals) return;
        this.clock.later(this.times.reverseAfterMs, () => {
          state.decision = STAGES[i]!.endsWith('WON') || STAGES[i] === 'CHARGEBACK_REVERSED' ? 'won' : 'lost';
          state.log.push(state.decision);
          notice(STAGES[i]!);
          next(i + 1);
        });
      };
      next(0);
    });
  }

  /**
   * What Adyen decided on the payment's chargeback now; undefined while it has not, or for an inquiry (Adyen
   * decides nothing of one: it lapses, or a chargeback follows; an acceptance at the gateway never reaches it).
   */
  decision(paymentPsp: string): 'won' | 'lost' | undefined {
    const s = this.decisions.get(paymentPsp);
    return s?.inquiry ? undefined : s?.decision;
  }

  /** Every decision Adyen made on the payment's chargeback, in order; none for an inquiry. */
  decisionLog(paymentPsp: string): ('won' | 'lost')[] {
    const s = this.decisions.get(paymentPsp);
    return s && !s.inquiry ? [...s.log] : [];
  }

  /** What the payment's chargeback took for good: lost now (an inquiry takes nothing). */
  taken(paymentPsp: string): number {
    const s = this.decisions.get(paymentPsp);
    return s && !s.inquiry && s.decision === 'lost' ? s.amount : 0;
  }

  /** The notifications owed since the last call, in the order Adyen made them. */
  notices(): OwedDisputeNotice[] {
    return this.owed.splice(0);
  }
}
