import { describe, expect, it } from 'vitest';
import { startJobs } from '../../../src/core/schedule/runner.js';
import type { BackgroundJob } from '../../../src/core/schedule/due-queue.js';
import type { Logger } from '../../../src/core/ports/deps.js';

describe('the job runner', () => {
  it('when items of a run failed, then the run is reported at warn level with its handled and failed counts', async () => {
    const lines: { level: string; obj: Record<string, unknown>; msg?: string }[] = [];
    const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
    const log: Logger = { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
    let failed = 0;
    const job: BackgroundJob = {
      name: 'flaky',
      intervalMs: 1,
      get failedItems() {
        return failed;
      },
      runOnce: async () => {
        failed += 2;
        return 3;
      },
    };
    const runner = startJobs([job], log);
    const start = Date.now();
    while (!lines.some((l) => l.level === 'warn') && Date.now() - start < 2000) await new Promise((r) => setTimeout(r, 5));
    await runner.stop();
    const warn = lines.find((l) => l.level === 'warn');
    expect(warn?.msg).toBe('job run: some items failed');
    expect(warn?.obj).toMatchObject({ job: 'flaky', handled: 3, failed: 2 });
  });
});
