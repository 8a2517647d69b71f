import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * node's flags in a checkout's `npm start` (package.json: `node <flags> dist/main.js`): the Dockerfile starts
 * the gateway with the same ones, and the bench runs it with them.
 */
export function startFlags(root: string): string[] {
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const m = /^node((?: --[\w-]+(?:=\S+)?)*) dist\/main\.js$/.exec(start);
  if (!m) throw new Error(`the start script is not "node <flags> dist/main.js": ${start}`);
  return m[1]!.split(' ').filter(Boolean);
}
