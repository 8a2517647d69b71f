import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { REQUEST_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { parseCompactDate } from '../../core/kernel/dates.js';
import { invalidField } from '../../core/kernel/errors.js';
import { clockAnswer, createClock, deleteClock, listClocks } from '../../core/clocks/clocks.js';
import { startAdvance } from '../../core/clocks/advance.js';
import { assertNotifyUrl } from '../../core/notifications/target.js';
import { authenticate, fieldValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { retrievalTestClockSchema, testClockAdvanceSchema, testClockDeleteSchema, testClockSchema } from '../schemas/test-clocks.js';

/** frozen_time read in GATEWAY_TIMEZONE; a local time a clock change skips is refused like any other non-date. */
function timeOf(text: string, timezone: string): number {
  const at = parseCompactDate(text, timezone);
  if (at === undefined) throw invalidField('frozen_time', 'is not a real date (YYYYMMDDhhmmss)');
  return at;
}

/** The test clock calls (docs/test-clocks.md), answered in JSON with return_status. */
export function testClocksRouter(deps: CoreDeps): Router {
  const router = Router();
  router.post('/v1/testClock', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, fieldValues(body, REQUEST_SIGNATURE_FIELDS.testClock));
    const input = parseOrThrow(testClockSchema, body);
    await assertNotifyUrl(input.notify_url, deps.notifyAllowPrivate, deps.transport.resolve);
    const clock = await createClock(deps, account, {
      request_id: input.request_id,
      frozen_time: timeOf(input.frozen_time, deps.timezone),
      name: input.name,
      notify_url: input.notify_url,
    });
    res.locals.outcome = { test_clock_id: clock.test_clock_id };
    res.json(clockAnswer(account, deps.timezone, [clock], true));
  });
  router.post('/v1/testClockAdvance', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, fieldValues(body, REQUEST_SIGNATURE_FIELDS.testClockAdvance));
    const input = parseOrThrow(testClockAdvanceSchema, body);
    const clock = await startAdvance(deps, account, input.test_clock_id, timeOf(input.frozen_time, deps.timezone));
    res.locals.outcome = { test_clock_id: clock.test_clock_id };
    res.json(clockAnswer(account, deps.timezone, [clock], true));
  });
  router.post('/v1/retrievalTestClock', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, fieldValues(body, REQUEST_SIGNATURE_FIELDS.retrievalTestClock));
    const input = parseOrThrow(retrievalTestClockSchema, body);
    res.json(clockAnswer(account, deps.timezone, await listClocks(deps, account, input.test_clock_id || undefined), false));
  });
  router.post('/v1/testClockDelete', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, fieldValues(body, REQUEST_SIGNATURE_FIELDS.testClockDelete));
    const input = parseOrThrow(testClockDeleteSchema, body);
    const clock = await deleteClock(deps, account, input.test_clock_id);
    res.locals.outcome = { test_clock_id: clock.test_clock_id };
    res.json(clockAnswer(account, deps.timezone, [{ ...clock }], true));
  });
  return router;
}
