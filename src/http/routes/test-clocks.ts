import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { parseCompactDate } from '../../core/kernel/dates.js';
import { invalidField } from '../../core/kernel/errors.js';
import { clockAnswer, createClock, deleteClock, listClocks } from '../../core/clocks/clocks.js';
import { startAdvance } from '../../core/jobs/advance.js';
import { assertNotifyUrl } from '../../core/notifications/target.js';
import { authenticate, signedValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { retrievalTestClockCall, testClockCall, testClockAdvanceCall, testClockDeleteCall } from '../calls/test-clocks.js';

/** frozen_time read in GATEWAY_TIMEZONE; a local time a clock change skips is refused like any other non-date. */
function timeOf(text: string, timezone: string): number {
  const at = parseCompactDate(text, timezone);
  if (at === undefined) throw invalidField('frozen_time', 'is not a real date (YYYYMMDDhhmmss)');
  return at;
}

/** The test clock calls (docs/test-clocks.md), answered in JSON with return_status. */
export function testClocksRouter(deps: CoreDeps): Router {
  const router = Router();
  router.post(testClockCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(testClockCall, body));
    const input = parseOrThrow(testClockCall.request, body);
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
  router.post(testClockAdvanceCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(testClockAdvanceCall, body));
    const input = parseOrThrow(testClockAdvanceCall.request, body);
    const clock = await startAdvance(deps, account, input.test_clock_id, timeOf(input.frozen_time, deps.timezone));
    res.locals.outcome = { test_clock_id: clock.test_clock_id };
    res.json(clockAnswer(account, deps.timezone, [clock], true));
  });
  router.post(retrievalTestClockCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(retrievalTestClockCall, body));
    const input = parseOrThrow(retrievalTestClockCall.request, body);
    res.json(clockAnswer(account, deps.timezone, await listClocks(deps, account, input.test_clock_id || undefined), false));
  });
  router.post(testClockDeleteCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(testClockDeleteCall, body));
    const input = parseOrThrow(testClockDeleteCall.request, body);
    const clock = await deleteClock(deps, account, input.test_clock_id);
    res.locals.outcome = { test_clock_id: clock.test_clock_id };
    res.json(clockAnswer(account, deps.timezone, [{ ...clock }], true));
  });
  return router;
}
