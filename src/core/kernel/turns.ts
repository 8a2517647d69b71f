/**
 * Lets the event loop serve everyone else (requests, timers, replies from the store) before a long job goes
 * on: jobs call it between their steps. On Redis every store call already waits for a reply; the embedded
 * store answers at once, so without this a job that makes thousands of store calls (a test clock advanced
 * by months) ran as one unbroken turn and every other merchant's request waited for its end.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
