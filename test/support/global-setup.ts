import { mkdirSync, rmSync } from 'node:fs';
import { ARTIFACTS, LOG_DIR, REDIS_DIR, SCREENSHOT_DIR } from './paths.js';

/** Each run starts with empty artifacts, so the card-data scan after the suite sees only this run's files. */
export default function setup(): void {
  rmSync(ARTIFACTS, { recursive: true, force: true });
  for (const dir of [ARTIFACTS, LOG_DIR, REDIS_DIR, SCREENSHOT_DIR]) mkdirSync(dir, { recursive: true });
}
