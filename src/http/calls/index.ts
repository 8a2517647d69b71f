import type { CallSpec } from './declare.js';
import { authoriseCall, checkoutCall, optimiseCall } from './payments.js';
import { cancelCall, captureCall, refundCall, reviewCall } from './operations.js';
import { retrievalRefundCall, retrievalTransCall } from './queries.js';
import { cancelSubscriptionCall } from './subscriptions.js';
import { resendNotificationsCall } from './notifications.js';
import { payoutCall, payoutQueryCall } from './payouts.js';
import { disputeAcceptCall, disputeEvidenceCall, retrievalDisputeCall } from './disputes.js';
import { retrievalTestClockCall, testClockCall, testClockAdvanceCall, testClockDeleteCall } from './test-clocks.js';
import { deleteCardCall, retrievalCardsCall } from './saved-cards.js';

export { CALL_ERRORS, type CallSpec } from './declare.js';

/** Every merchant call, in the OpenAPI document's order. */
export const CALLS: readonly CallSpec[] = [
  authoriseCall,
  checkoutCall,
  captureCall,
  cancelCall,
  reviewCall,
  refundCall,
  retrievalTransCall,
  retrievalRefundCall,
  cancelSubscriptionCall,
  resendNotificationsCall,
  payoutCall,
  payoutQueryCall,
  retrievalDisputeCall,
  disputeEvidenceCall,
  disputeAcceptCall,
  testClockCall,
  testClockAdvanceCall,
  retrievalTestClockCall,
  testClockDeleteCall,
  optimiseCall,
  retrievalCardsCall,
  deleteCardCall,
];

/** The call declared at `path` (a Map: no path names an inherited member). */
const BY_PATH: ReadonlyMap<string, CallSpec> = new Map(CALLS.map((c) => [c.path, c]));

export function callAt(path: string): CallSpec | undefined {
  return BY_PATH.get(path);
}

/**
 * Calls whose errors carry return_status "0" (their answers do): matched as a path prefix ending at a word
 * boundary, so `/v1/captureCall/` and a GET to the path are answered in the call's own shape too.
 */
const WITH_RETURN_STATUS = new RegExp(
  `^(${CALLS.filter((c) => c.errorBody === 'return_status')
    .map((c) => c.path.replace(/[/]/g, '\\/'))
    .join('|')})\\b`,
);

export function errorsCarryReturnStatus(path: string): boolean {
  return WITH_RETURN_STATUS.test(path);
}
