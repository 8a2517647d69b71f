/**
 * The mutants check's list (mutants.test.ts, docs/operations.md): named reversals of the gateway's money rules,
 * each a textual patch of the source. The simulation must fail on every one within the seeds CI runs: a mutant
 * the simulation survives is a rule it does not test. A patch that no longer applies (its text is not found
 * exactly once) fails the check loudly: rewrite it against the code as it is now.
 */
export interface Mutant {
  name: string;
  /** the rule the mutant breaks, as docs/operations.md states it */
  rule: string;
  patches: { file: string; find: string; replace: string }[];
  /** the simulations to run it under, in order, until one fails (each with the seed count CI runs) */
  suites: Suite[];
}

export type Suite = 'memory' | 'stripe' | 'adyen';

export const MUTANTS: readonly Mutant[] = [
  {
    name: 'unknown kept claimed',
    rule: 'an operation whose outcome is unknown keeps its claim until the acquirer says what it did',
    patches: [
      {
        file: 'src/core/operations/finish.ts',
        find: '  if (outcome === UNKNOWN) {\n',
        replace:
          "  if (outcome === UNKNOWN) outcome = { ok: false, message: 'mutant: unknown taken as a refusal' };\n  if (outcome === UNKNOWN) {\n",
      },
    ],
    suites: ['stripe', 'memory', 'adyen'],
  },
  {
    name: 'the duplicate-refund rule',
    rule: "a refund order repeated within the account's refund_duplicate_seconds refunds nothing more",
    patches: [
      {
        file: 'src/core/operations/refund.ts',
        find: '  const windowMs = account.refund_duplicate_seconds * 1000;\n',
        replace: '  if (account) return undefined;\n  const windowMs = account.refund_duplicate_seconds * 1000;\n',
      },
    ],
    suites: ['memory', 'stripe'],
  },
  {
    name: 'the atomic outcome commit',
    rule: "an operation's outcome, its notification and the claim's release are one commit",
    patches: [
      {
        file: 'src/core/operations/finish.ts',
        find: '  const verdict = await commitMarked(deps, change, next.transaction_id, next.written_by!);\n',
        replace:
          '  const { outbox: notes, ...rest } = change;\n' +
          '  const verdict = await commitMarked(deps, rest, next.transaction_id, next.written_by!);\n' +
          "  if (verdict === 'applied' && notes && notes.length > 0)\n" +
          '    await deps.store.commit({ merchantId: m, ...(change.clock ? { clock: change.clock } : {}), outbox: notes });\n',
      },
    ],
    suites: ['memory', 'stripe'],
  },
  {
    name: 'processing as pending',
    rule: "an authorisation the acquirer decides later (Stripe's processing, Adyen's Received) stays pending until it has decided, never declined",
    patches: [
      {
        file: 'src/core/payments/settle.ts',
        find: "  if (outcome.kind === 'pending') {\n",
        replace:
          "  if (outcome.kind === 'pending') outcome = { kind: 'error', message: 'mutant: a pending authorisation taken as failed' };\n" +
          "  if (outcome.kind === 'pending') {\n",
      },
    ],
    suites: ['stripe', 'memory'],
  },
  {
    name: 'one reference per intent',
    rule: 'an operation whose outcome is unknown is sent again only under its own reference, never under a new one',
    patches: [
      {
        file: 'src/core/operations/finish.ts',
        find: '          ? await attempt(connector, op, before, plan, claim.reference)\n',
        replace:
          '          ? await attempt(connector, op, before, plan, known === UNKNOWN ? `${claim.reference}-again` : claim.reference)\n',
      },
    ],
    suites: ['stripe', 'adyen'],
  },
  {
    name: 'disputes not closed by the deadline',
    rule: "the evidence deadline ends evidence, not the dispute: an acquirer's dispute waits for its decision",
    patches: [
      {
        file: 'src/core/disputes/steps.ts',
        find: '    if (unanswered && !change) return askAcquirer(deps, account, member, dispute, payment, now);\n',
        replace: "    if (unanswered && !change) change = { before: dispute, steps: pathTo(dispute, 'lost', now, 'decided')!, due: [] };\n",
      },
    ],
    suites: ['stripe', 'adyen', 'memory'],
  },
];
