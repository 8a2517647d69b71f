import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { expect } from 'vitest';
import type { Express } from 'express';
import { testClockJob } from '../../src/core/jobs/test-clocks.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, type TestGateway } from './gateway.js';
import { sign, signBody } from './sign.js';

/** docs/api.md#signatures's field lists of the test clock calls, written from the document (not imported from src). */
export const CLOCK_FIELDS = {
  testClock: ['merchant_id', 'account_id', 'request_id'],
  testClockAdvance: ['merchant_id', 'account_id', 'test_clock_id', 'frozen_time'],
  retrievalTestClock: ['merchant_id', 'account_id'],
  testClockDelete: ['merchant_id', 'account_id', 'test_clock_id'],
} as const;

export type ClockCall = keyof typeof CLOCK_FIELDS;

/** `YYYYMMDDhhmmss` of an epoch ms (UTC, the tests' GATEWAY_TIMEZONE). */
export function compact(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Posts a signed test clock call as JSON text under the form content type, as merchants send the calls. */
export function clockCall(app: Express, call: ClockCall, fields: Record<string, unknown>, account = ACCOUNT_ID, key = SIGN_KEY) {
  const body = signBody({ merchant_id: MERCHANT_ID, account_id: account, ...fields }, CLOCK_FIELDS[call], key);
  return request(app).post(`/v1/${call}`).set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body));
}

/** Checks an answer's encryption_data (merchant_id, account_id, return_status) and returns its body. */
export function signedAnswer(res: { status: number; body: Record<string, unknown>; text: string }, key = SIGN_KEY): Record<string, string> {
  expect(res.status, res.text).toBe(200);
  const b = res.body as Record<string, string>;
  expect(b.encryption_data).toBe(sign([b.merchant_id, b.account_id, b.return_status], key));
  return b;
}

/** Creates a clock at `at` and returns its id. */
export async function newClock(app: Express, at: number, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await clockCall(app, 'testClock', { request_id: `req-${randomUUID()}`, frozen_time: compact(at), ...extra });
  const b = signedAnswer(res);
  expect(b).toMatchObject({ return_status: '1', frozen_time: compact(at), clock_status: 'ready' });
  return b.test_clock_id!;
}

/** The clock as /v1/retrievalTestClock answers it. */
export async function clockState(app: Express, id: string): Promise<Record<string, string>> {
  const b = signedAnswer(await clockCall(app, 'retrievalTestClock', { test_clock_id: id }));
  return (b as unknown as { test_clocks: Record<string, string>[] }).test_clocks[0]!;
}

/**
 * Runs the gateways' test clock jobs (as main runs them, each process its own) until the clock is ready, at
 * most `rounds` runs each; the jobs of several gateways run at once, as several processes would.
 */
export async function runClockJobs(gws: TestGateway[], id: string, rounds = 200): Promise<Record<string, string>> {
  const jobs = gws.map((gw) => testClockJob(gw.deps));
  for (let i = 0; i < rounds; i++) {
    await Promise.all(jobs.map((j) => j.runOnce()));
    const state = await clockState(gws[0]!.app, id);
    if (state.clock_status === 'ready') return state;
  }
  throw new Error(`test clock ${id} not ready after ${rounds} runs`);
}
