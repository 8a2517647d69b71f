import type Stripe from 'stripe';
import { MemoryKv } from '../../src/store/memory-kv.js';
import { stripeEvent } from '../../src/connectors/stripe/events.js';
import { adyenEvent } from '../../src/connectors/adyen/events.js';
import { StripeStub, type StripeTimes } from '../support/acquirers/stripe-stub.js';
import { stripeBook, stripeStatus } from '../support/acquirers/stripe-records.js';
import { AdyenStub, type AdyenTimes } from '../support/acquirers/adyen-stub.js';
import { ADYEN_HMAC } from '../support/acquirers/accounts.js';
import type { StubRequest } from '../support/acquirers/stub-server.js';
import { simulate, type RunResult } from './simulate.js';
import { prng, type SimAcquirer } from './world.js';
import { runSeeds } from './seeds.js';

/**
 * A stub started for one run: what the run routes to, what it counted (`charges`: the payments it made, and
 * what else the test wants to see happened: disputes opened and decided, answers lost, requests acted on
 * later, intents processing, refunds pending, ...), and its stop.
 */
export interface RunStub {
  acquirer: SimAcquirer;
  counts(): Record<string, number>;
  stop(): Promise<void>;
}

export interface AcquirerRuns {
  results: RunResult[];
  /** the stubs' counts summed over all runs (RunStub.counts): `charges` shows the runs went to the acquirer */
  counts: Record<string, number>;
  faults: number;
  /** the failed seeds, the first two with their violations and traces */
  failed: RunResult[];
  shown: string;
}

/**
 * Seeds of the fault simulation on the in-memory store, eight at a time, each against a stub of its
 * own (the runs' counting ids repeat from seed to seed, so an acquirer's records must not be shared). With
 * `stopAtFailure`, no seed after the first failing one is started (the mutants check).
 */
export async function acquirerRuns(
  seeds: readonly number[],
  start: (seed: number) => Promise<RunStub>,
  stopAtFailure = false,
  /** the variable that replays one seed (printed with a failure) */
  replay = 'SIM_SEED',
): Promise<AcquirerRuns> {
  const counts: Record<string, number> = {};
  const results = await runSeeds(seeds, 8, stopAtFailure, async (seed) => {
    const stub = await start(seed);
    try {
      const result = await simulate(seed, new MemoryKv(), { steps: 24, badWrites: false, lostCommits: false, acquirer: stub.acquirer });
      for (const [k, n] of Object.entries(stub.counts())) counts[k] = (counts[k] ?? 0) + n;
      return result;
    } finally {
      await stub.stop();
    }
  });
  const failed = results.filter((r) => r.violations.length > 0).sort((a, b) => a.seed - b.seed);
  const shown = failed
    .slice(0, 2)
    .map((r) =>
      [`seed ${r.seed} (replay: ${replay}=${r.seed})`, ...r.violations.map((v) => `  ! ${v}`), ...r.trace.map((t) => `  ${t}`)].join('\n'),
    )
    .join('\n\n');
  return { results, counts, faults: results.reduce((n, r) => n + r.faults.length, 0), failed, shown };
}

/**
 * The seeds a run of the Stripe or Adyen simulation takes: 1..`<prefix>S` (`count` unset), or the one seed
 * `<prefix>` names (replaying a failure).
 */
export function acquirerSeeds(prefix: 'SIM_STRIPE_SEED' | 'SIM_ADYEN_SEED', count: number): number[] {
  const one = process.env[prefix];
  const n = Number(process.env[`${prefix}S`] ?? count);
  return one !== undefined ? [Number(one)] : Array.from({ length: n }, (_, i) => i + 1);
}

const DAY = 86_400_000;

/** A request that moves money at the acquirer (every POST but the challenge page's). */
const moneyRequest = (r: StubRequest): boolean => r.method === 'POST' && !r.path.startsWith('/challenge/');

/**
 * How the seed's Stripe behaves in time: about one intent in nine `processing` for one to five minutes, then
 * approved or declined; about one refund in seven `pending` for up to five minutes, then made or failed; its
 * search and its refunds list trailing its objects by up to two and a half minutes.
 */
export function stripeTimes(seed: number): StripeTimes {
  const random = prng(seed * 7919 + 17);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  return {
    processing: (amount) => (amount % 9 === 4 ? { ms: (1 + (amount % 5)) * 60_000, approve: amount % 2 === 0 } : undefined),
    refundPending: (amount) => (amount % 7 === 3 ? { ms: (1 + (amount % 10)) * 30_000, succeeds: amount % 3 !== 0 } : undefined),
    searchLagMs: () => pick([0, 0, 2_000, 30_000, 90_000, 150_000]),
    listLagMs: () => pick([0, 0, 1_000, 20_000, 120_000]),
    // disputes: 7 days for evidence, decided a day after it (or after the deadline), one in four answered in
    // Stripe's Dashboard and one in five unanswered withdrawn by the cardholder (each decided won after the
    // deadline), one in three decisions reversed two days later
    disputes: {
      dueMs: 7 * DAY,
      decideAfterMs: DAY,
      dashboard: (amount) => amount % 4 === 1,
      withdrawnByCardholder: (amount) => amount % 5 === 2,
      reversed: (amount) => amount % 3 === 0,
      reverseAfterMs: 2 * DAY,
    },
  };
}

/**
 * A run's Stripe stub (test/support/acquirers/stripe-stub.ts) as the simulation meets it: on the run's clock,
 * with the seed's times; the shopper on Stripe's own challenge page; its webhooks (intents, refunds, disputes)
 * and its own records as the invariants' truth.
 */
export async function stripeRunStub(seed: number): Promise<RunStub> {
  const stub = await new StripeStub(stripeTimes(seed)).start();
  const faults = { 'answer-lost': 0, 'act-later': 0 };
  const acquirer: SimAcquirer = {
    code: 'stripe',
    baseUrl: stub.baseUrl,
    useClock: (now) => stub.useClock(now),
    settle: () => stub.settle(),
    busy: () => stub.busy,
    nextDue: () => stub.nextDue,
    // Stripe's SDK sends a request whose connection dropped once more by itself: a lost answer is two drops, and
    // that second request meets the first still running (409) when it acts later
    arm: (fault) => {
      faults[fault.mode]++;
      if (fault.mode === 'act-later') stub.server.fail('act-later', moneyRequest, 1, fault.delayMs);
      else stub.server.fail('act-then-drop', moneyRequest, 2);
      return () => stub.server.clearFaults();
    },
    status: (reference) => stripeStatus(stub, reference),
    book: (transactionId) => stripeBook(stub, transactionId),
    // the shopper on Stripe's own challenge page: Stripe authorises (or fails) the intent there by itself,
    // whether or not the shopper comes back; an intent no longer waiting (cancelled) takes no answer
    challengeAnswer: (transactionId, passed) => {
      const intent = stub.intentFor(transactionId);
      if (intent?.status === 'requires_action') stub.finishChallenge(intent.id, passed);
      return '';
    },
    // its webhooks: an intent authorised or failed on Stripe's page settles a payment still waiting on it,
    // a refund decided later says so, and its disputes: opened on the dispute cards' charges, decided on the
    // evidence, each move an event
    events: () =>
      [...stub.pendingEvents(), ...stub.refundEvents(), ...stub.disputeEvents()].map((e) => stripeEvent(e as unknown as Stripe.Event)),
    disputeDecision: (transactionId) => stub.disputeDecision(transactionId),
    disputeDecisions: (transactionId) => stub.disputeDecisions(transactionId),
  };
  return {
    acquirer,
    counts: () => ({
      charges: stub.intents.size,
      ...faults,
      processing: stub.wentProcessing.size,
      'refunds pending': stub.wentPending.size,
      'disputes opened': stub.disputes.size,
      'disputes decided': [...stub.intents.values()].filter((pi) => stub.disputeDecision(pi.metadata.gateway_reference ?? '') !== undefined)
        .length,
    }),
    stop: () => stub.stop(),
  };
}

/**
 * How the seed's Adyen behaves in time: about one payment in nine answered `Received` or `Pending` and decided
 * one to five minutes later (its AUTHORISATION tells); about one refund in seven refused after it was received;
 * a payment left waiting on its challenge closed after 12 hours (OFFER_CLOSED); the dispute cards' chargebacks
 * and their reversals.
 */
export function adyenTimes(): AdyenTimes {
  return {
    pending: (value) =>
      value % 9 === 4
        ? { ms: (1 + (value % 5)) * 60_000, approve: value % 2 === 0, resultCode: value % 3 === 0 ? 'Pending' : 'Received' }
        : undefined,
    refuseRefundLater: (value) => value % 7 === 3,
    // a challenge payment whose answer was lost never reaches the shopper: Adyen closes its offer (cards: 12 h)
    offerExpiresMs: 12 * 3_600_000,
    // the dispute cards charged back once captured (the inquiry card asked for information), undefended, and
    // reversed up to three times (won, charged back again, pre-arbitration won), two days apart
    disputes: {
      cards: {
        '4000000000000259': { reason: 'Fraud' },
        '4000000000002685': { reason: 'Merchandise not received' },
        '4000000000007726': { reason: 'Duplicate processing' },
        '4000000000001976': { reason: 'Request for information', inquiry: true },
      },
      defenceMs: 7 * DAY,
      reversals: (value) => value % 4,
      reverseAfterMs: 2 * DAY,
    },
  };
}

/** A run's Adyen stub: on the run's clock, one capture in five failing later (by its amount), its webhooks and records. */
export async function adyenRunStub(): Promise<RunStub> {
  const stub = await new AdyenStub((value) => value % 5 === 2, adyenTimes()).start();
  const faults = { 'answer-lost': 0, 'act-later': 0 };
  const acquirer: SimAcquirer = {
    code: 'adyen',
    baseUrl: stub.baseUrl,
    useClock: (now) => stub.useClock(now),
    settle: () => stub.settle(),
    busy: () => stub.busy,
    nextDue: () => stub.nextDue,
    arm: (fault) => {
      faults[fault.mode]++;
      if (fault.mode === 'act-later') stub.server.fail('act-later', moneyRequest, 1, fault.delayMs);
      else stub.server.fail('act-then-drop', moneyRequest, 1);
      return () => stub.server.clearFaults();
    },
    status: (reference) => stub.status(reference),
    book: (transactionId) => stub.book(transactionId),
    // the shopper at Adyen's challenge page: the return carries Adyen's redirectResult
    challengeAnswer: (transactionId, passed) => {
      const payment = stub.paymentFor(transactionId);
      return payment ? stub.redirectResult(payment.pspReference, passed) : '';
    },
    events: () => stub.pendingNotifications(ADYEN_HMAC).map(adyenEvent),
    disputeDecision: (transactionId) => stub.disputeDecision(transactionId),
    disputeDecisions: (transactionId) => stub.disputeDecisions(transactionId),
  };
  return {
    acquirer,
    counts: () => ({
      charges: stub.payments.size,
      ...faults,
      'captures failed later': stub.capturesFailed,
      'decided later': stub.decidedLater,
      'refunds refused later': stub.modifications.filter((m) => m.refusedLater).length,
      'disputes decided': [...stub.payments.values()].filter((p) => stub.disputeDecision(p.reference) !== undefined).length,
    }),
    stop: () => stub.stop(),
  };
}
