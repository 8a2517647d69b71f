import { z } from 'zod';
import { accountId, merchantId, optionalText, optionalUrl, signature } from './common.js';

/** What a real date written YYYYMMDDhhmmss looks like; the route reads it in GATEWAY_TIMEZONE. */
const COMPACT_DATE = /^\d{4}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?:[01]\d|2[0-3])[0-5]\d[0-5]\d$/;
export const frozenTime = z
  .string({ error: 'is required' })
  .regex(/^\d{14}$/, 'must be a date written YYYYMMDDhhmmss')
  .regex(COMPACT_DATE, 'is not a real date (YYYYMMDDhhmmss)');

/** What a test_clock_id looks like (the gateway makes `clock_` and 24 characters). */
export const TEST_CLOCK_ID = /^[\w-]{1,64}$/;
export const testClockId = z
  .string({ error: 'is required' })
  .min(1, 'is required')
  .regex(TEST_CLOCK_ID, 'must be 1 to 64 letters, digits, _ or -');

/** test_clock_id on /v1/authorise and /v1/checkout: '' or absent is no clock. */
export const optionalTestClockId = z
  .union([z.literal(''), testClockId])
  .optional()
  .default('');

const head = { merchant_id: merchantId, account_id: accountId, encryption_data: signature };

/** POST /v1/testClock (docs/test-clocks.md); notify_url (this project's addition) receives the clock's `test_clock` notifications. */
export const testClockSchema = z.object({
  ...head,
  request_id: z.string({ error: 'is required' }).min(1, 'is required').max(64, 'must be at most 64 characters'),
  frozen_time: frozenTime,
  name: optionalText(100),
  notify_url: optionalUrl,
});

export const testClockAdvanceSchema = z.object({ ...head, test_clock_id: testClockId, frozen_time: frozenTime });

export const retrievalTestClockSchema = z.object({ ...head, test_clock_id: optionalTestClockId });

export const testClockDeleteSchema = z.object({ ...head, test_clock_id: testClockId });
