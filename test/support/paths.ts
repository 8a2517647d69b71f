import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * Everything the tests leave behind (Redis data, logs, screenshots); scanned after the suite. TEST_ARTIFACTS
 * moves it, so a run of a few files beside a whole suite in the same checkout does not empty the other's.
 */
export const ARTIFACTS = process.env.TEST_ARTIFACTS ?? join(ROOT, 'test-artifacts');
export const REDIS_DIR = join(ARTIFACTS, 'redis');
export const LOG_DIR = join(ARTIFACTS, 'logs');
/** what the embedded stores of the tests' gateways held when they were closed (memory-dump.ts) */
export const MEMORY_DIR = join(ARTIFACTS, 'memory-store');
export const SCREENSHOT_DIR = join(ARTIFACTS, 'screenshots');
