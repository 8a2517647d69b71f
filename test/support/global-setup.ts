import { mkdirSync, rmSync } from 'node:fs';
import { ARTIFACTS } from './paths.js';

/** Each run starts with empty artifacts, so the card-data scan after the suite sees only this run's files. */
export default function setup(): void {
  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
}
