/**
 * npm run lint:openapi: the OpenAPI document GET /openapi.json serves (the same function, the package's
 * version), written to a temporary file and linted by Redocly CLI with redocly.yaml. Fails on any error.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../src/http/openapi/document.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, `${JSON.stringify(openApiDocument('https://gateway.test', version), null, 2)}\n`);
  const lint = spawnSync(join(root, 'node_modules', '.bin', 'redocly'), ['lint', file, '--config', join(root, 'redocly.yaml')], {
    stdio: 'inherit',
  });
  process.exitCode = lint.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
