import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/paths.js';
import { startFlags } from './support/start-flags.js';

describe('how the gateway process is started', () => {
  it('when started by npm start or by the Docker image, then node gets the same flags, the young generation’s size among them', () => {
    const flags = startFlags(ROOT);
    expect(flags).toContain('--max-semi-space-size=64');
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    expect(cmd).not.toBeNull();
    expect(JSON.parse(cmd![1]!)).toEqual(['node', ...flags, 'dist/main.js']);
  });
});
