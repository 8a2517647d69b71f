import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { backgroundJobs } from '../../src/compose.js';
import type { BackgroundJob } from '../../src/core/schedule/due-queue.js';
import { authoriseBody, SIGN_KEY, type TestGateway } from './gateway.js';

/** The gateway's own background job of that name, as main runs it. */
export function jobOf(
  gw: TestGateway,
  name:
    | 'notification-delivery'
    | 'notification-requeue'
    | 'subscription-charges'
    | 'threeds-challenge-expiry'
    | 'pending-resolve'
    | 'auth-expiry'
    | 'dispute-steps'
    | 'reconciliation',
): BackgroundJob {
  const job = backgroundJobs(gw.deps, gw.config).find((j) => j.name === name);
  if (!job) throw new Error(`no background job ${name}`);
  return job;
}

const xml = new XMLParser({ parseTagValue: false });

/** Sends a signed /v1/authorise (JSON text under the form content type, as merchants do); returns the respon document. */
export async function authorise(
  gw: TestGateway,
  overrides: Record<string, unknown> = {},
  signKey = SIGN_KEY,
): Promise<Record<string, string>> {
  const res = await request(gw.app)
    .post('/v1/authorise')
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send(JSON.stringify(authoriseBody(overrides, signKey)));
  if (res.status !== 200) throw new Error(`authorise answered ${res.status}: ${res.text}`);
  return xml.parse(res.text).respon as Record<string, string>;
}

/** A payment's subscription block: a daily plan of `billing_cycle` 2 (the payment, then one charge) unless overridden. */
export function dailyPlan(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    contract: 'C-1',
    contract_name: 'Gold plan',
    contract_amount: '25.00',
    interval: 'day',
    interval_count: '1',
    billing_cycle: 2,
    promotion_cycle: 1,
    contract_start: '2026-11-21',
    contract_end: '',
    price_id: 'price_gold',
    ...overrides,
  };
}
