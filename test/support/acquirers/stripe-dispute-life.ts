import type { Dispute } from './stripe-stub.js';

/**
 * How Stripe carries a dispute through time in the simulation (all on the stub's clock): the merchant has until
 * `due_by` for evidence; Stripe decides some time after the evidence, or after the deadline when none came (a
 * chargeback lost, an inquiry closed); some disputes are answered in Stripe's Dashboard instead (under review
 * without the gateway, decided won only after the deadline), some unanswered chargebacks are withdrawn by the
 * cardholder (decided won after the deadline); and some decisions are reversed later (a loss reinstated, a win
 * charged back again by a second chargeback or pre-arbitration).
 */
export interface StripeDisputeTimes {
  /** how long the merchant has for evidence: evidence_details.due_by */
  dueMs: number;
  /** how long after the evidence (or the deadline) Stripe decides */
  decideAfterMs: number;
  /** a dispute the merchant answers in Stripe's Dashboard (by its amount, minor units) */
  dashboard: (amount: number) => boolean;
  /** an unanswered chargeback the cardholder withdraws: Stripe decides it won after the deadline */
  withdrawnByCardholder: (amount: number) => boolean;
  /** a decision Stripe reverses later (by the dispute's amount), `reverseAfterMs` after it */
  reversed: (amount: number) => boolean;
  reverseAfterMs: number;
}

/** A Stripe event of a dispute, as its webhook carries it (`created`: unix seconds). */
export interface DisputeEvent {
  id: string;
  object: 'event';
  type: string;
  created: number;
  data: { object: Dispute };
}

/**
 * A dispute's life at the Stripe stub: its moves, each an event owed (drained by `events`), and the money Stripe
 * holds back for it (`withdrawn`: a chargeback takes the amount when it opens, a win gives it back, a
 * reversal moves it again). What Stripe decided is `decision`.
 */
export class StripeDisputeLife {
  private readonly owed: DisputeEvent[] = [];
  private readonly state = new Map<string, { decision?: 'won' | 'lost'; withdrawn: boolean; decisions: ('won' | 'lost')[] }>();
  private seq = 0;

  constructor(
    private readonly clock: { now(): number; later(ms: number, act: () => void): void },
    private readonly times: StripeDisputeTimes,
  ) {}

  /** A dispute just opened: its deadline set, its funds withdrawn (a chargeback), its course to come planned. */
  opened(dp: Dispute): void {
    const chargeback = dp.status === 'needs_response';
    this.state.set(dp.id, { withdrawn: chargeback, decisions: [] });
    dp.evidence_details.due_by = Math.floor((this.clock.now() + this.times.dueMs) / 1000);
    this.emit('charge.dispute.created', dp);
    if (chargeback) this.emit('charge.dispute.funds_withdrawn', dp);
    if (this.times.dashboard(dp.amount))
      // the merchant answers in Stripe's Dashboard: under review without the gateway's evidence
      this.clock.later(this.times.dueMs / 2, () => {
        if (!dp.status.endsWith('needs_response')) return;
        dp.status = chargeback ? 'under_review' : 'warning_under_review';
        dp.evidence.uncategorized_text = 'sent in the Dashboard';
        this.emit('charge.dispute.updated', dp);
      });
    // at the deadline: unanswered, decided (lost, or an inquiry closed); answered in the Dashboard, decided won after it
    this.clock.later(this.times.dueMs, () => {
      const { decision } = this.state.get(dp.id)!;
      if (decision !== undefined) return;
      if (dp.status === 'needs_response' && this.times.withdrawnByCardholder(dp.amount))
        this.clock.later(this.times.decideAfterMs, () => this.decide(dp, 'won'));
      else if (dp.status.endsWith('needs_response')) this.clock.later(3_600_000, () => this.decide(dp, 'lost'));
      else if (dp.evidence.uncategorized_text === 'sent in the Dashboard')
        this.clock.later(this.times.decideAfterMs, () => this.decide(dp, 'won'));
    });
  }

  /** The gateway's evidence was submitted: Stripe decides on it later (lost if it says `losing_evidence`). */
  evidenceSubmitted(dp: Dispute): void {
    this.emit('charge.dispute.updated', dp);
    const losing = Object.values(dp.evidence).some((t) => t.includes('losing_evidence'));
    this.clock.later(this.times.decideAfterMs, () => this.decide(dp, losing ? 'lost' : 'won'));
  }

  /** The merchant closed (accepted) the dispute: a chargeback lost at once, an inquiry closed. */
  accepted(dp: Dispute): void {
    this.decide(dp, 'lost', true);
  }

  /** What Stripe decided now; undefined while it has not. */
  decision(id: string): 'won' | 'lost' | undefined {
    return this.state.get(id)?.decision;
  }

  /** Every decision Stripe made on the dispute, in order (its first, then each reversal). */
  decisions(id: string): ('won' | 'lost')[] {
    return [...(this.state.get(id)?.decisions ?? [])];
  }

  /** What the dispute has taken from the merchant for good: a chargeback decided lost (and not reinstated). */
  taken(dp: Dispute): number {
    const s = this.state.get(dp.id);
    return s?.decision === 'lost' && s.withdrawn ? dp.amount : 0;
  }

  /** The events owed since the last call, in the order Stripe made them. */
  events(): DisputeEvent[] {
    return this.owed.splice(0);
  }

  /**
   * Stripe decides: a chargeback won or lost; an inquiry is closed either way (warning_closed: no chargeback
   * came of it, won), unless the merchant accepted it (`accepted`: lost, as the gateway counts an acceptance).
   */
  private decide(dp: Dispute, decision: 'won' | 'lost', accepted = false): void {
    const s = this.state.get(dp.id)!;
    if (s.decision !== undefined) return;
    const inquiry = dp.status.startsWith('warning_');
    s.decision = inquiry && !accepted ? 'won' : decision;
    s.decisions.push(s.decision);
    // an inquiry is closed either way (a chargeback would be a dispute of its own); a chargeback won or lost
    dp.status = inquiry ? 'warning_closed' : decision;
    this.emit('charge.dispute.closed', dp);
    if (inquiry) return;
    if (decision === 'won' && s.withdrawn) {
      s.withdrawn = false;
      this.emit('charge.dispute.funds_reinstated', dp);
    }
    if (this.times.reversed(dp.amount)) this.clock.later(this.times.reverseAfterMs, () => this.reverse(dp));
  }

  /** Stripe reverses its decision: a loss reinstated (funds_reinstated), a win charged back again (funds_withdrawn). */
  private reverse(dp: Dispute): void {
    const s = this.state.get(dp.id)!;
    if (s.decision === 'lost') {
      s.decision = 'won';
      s.withdrawn = false;
      this.emit('charge.dispute.funds_reinstated', dp);
    } else {
      s.decision = 'lost';
      s.withdrawn = true;
      this.emit('charge.dispute.funds_withdrawn', dp);
    }
    s.decisions.push(s.decision);
  }

  private emit(type: string, dp: Dispute): void {
    this.owed.push({
      id: `evt_${dp.id}_${++this.seq}`,
      object: 'event',
      type,
      created: Math.floor(this.clock.now() / 1000),
      data: { object: structuredClone(dp) },
    });
  }
}
