import { appendFileSync } from 'node:fs';
import { afterAll, afterEach, expect } from 'vitest';
import { contractState, installAnswerCheck, takeAnswerProblems } from './watch.js';

/**
 * Vitest setup (vitest.config.ts setupFiles): every answer the gateway gives a test is checked against its
 * OpenAPI document (check.ts), so the API and page tests are contract tests too. A test during which an
 * answer fell outside the document fails with the answers named. ANSWER_CHECK_LOG=<file> appends a JSON line per
 * test file (the number of answers checked) and per problem found.
 */
installAnswerCheck();

const log = process.env.ANSWER_CHECK_LOG;

const report = async (when: string): Promise<void> => {
  const problems = await takeAnswerProblems();
  if (problems.length === 0) return;
  if (log) appendFileSync(log, `${JSON.stringify({ file: expect.getState().testPath, when, problems })}\n`);
  throw new Error(
    `${problems.length} answer(s) ${when} fell outside the OpenAPI document (src/http/openapi/; test/support/contract/check.ts):\n- ${problems.join('\n- ')}`,
  );
};

afterEach(() => report(`during "${expect.getState().currentTestName ?? 'this test'}"`));
afterAll(async () => {
  try {
    await report('after the last test of this file');
  } finally {
    if (log) appendFileSync(log, `${JSON.stringify({ file: expect.getState().testPath, checked: contractState().checked })}\n`);
  }
});
