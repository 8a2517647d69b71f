import type { Account } from '../records/directory.js';
import type { RiskAssessment, RiskCheck } from '../records/payment.js';

export interface RiskInput {
  amount: number;
  shopper_email: string;
  shopper_ip: string;
  billing_country: string;
  delivery_country: string;
  device_fingerprint: string;
  /** card brand is UNKNOWN when no rule knows the number range */
  card_brand: string;
}

const DISPOSABLE_DOMAINS = new Set(['mailinator.com', 'guerrillamail.com', '10minutemail.com', 'trashmail.com', 'yopmail.com']);

interface Rule {
  name: string;
  /** points added to the score when the rule hits, or a forced action */
  check(input: RiskInput, account: Account): { points: number; force?: 'REVIEW' | 'REJECT' } | undefined;
}

/** The first rule set. Each rule is reported with its own status so merchants see why. */
const RULES: Rule[] = [
  {
    // docs/api.md#test-cards-and-risk-triggers: the sandbox's risk triggers
    name: 'email_test_trigger',
    check: ({ shopper_email }) => {
      const local = shopper_email.split('@')[0] ?? '';
      if (local.endsWith('+reject')) return { points: 100, force: 'REJECT' };
      if (local.endsWith('+review')) return { points: 70, force: 'REVIEW' };
      return undefined;
    },
  },
  {
    name: 'disposable_email',
    check: ({ shopper_email }) => (DISPOSABLE_DOMAINS.has((shopper_email.split('@')[1] ?? '').toLowerCase()) ? { points: 30 } : undefined),
  },
  {
    name: 'high_amount',
    check: ({ amount }, account) =>
      account.risk.high_amount_minor > 0 && amount > account.risk.high_amount_minor ? { points: 40 } : undefined,
  },
  {
    name: 'delivery_country_mismatch',
    check: ({ billing_country, delivery_country }) =>
      billing_country && delivery_country && billing_country.toUpperCase() !== delivery_country.toUpperCase() ? { points: 20 } : undefined,
  },
  {
    name: 'missing_device_data',
    check: ({ shopper_ip, device_fingerprint }) => (!shopper_ip && !device_fingerprint ? { points: 10 } : undefined),
  },
];

const RANK = { ACCEPT: 0, REVIEW: 1, REJECT: 2 } as const;

/** Scores a payment before it reaches the connector: ACCEPT, REVIEW (held, 2000) or REJECT (4200). */
export function assessRisk(input: RiskInput, account: Account): RiskAssessment {
  let score = 0;
  let action: RiskAssessment['action'] = 'ACCEPT';
  const checks: RiskCheck[] = [];
  for (const rule of RULES) {
    const hit = rule.check(input, account);
    if (!hit) {
      checks.push({ name: rule.name, status: 'ACCEPT' });
      continue;
    }
    score += hit.points;
    const status = hit.force ?? (hit.points >= account.risk.review_score ? 'REVIEW' : 'ACCEPT');
    checks.push({ name: rule.name, status });
    if (RANK[status] > RANK[action]) action = status;
  }
  score = Math.min(score, 100);
  if (score >= account.risk.reject_score) action = 'REJECT';
  else if (score >= account.risk.review_score && action === 'ACCEPT') action = 'REVIEW';
  return { action, score, checks };
}
