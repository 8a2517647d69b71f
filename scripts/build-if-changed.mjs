// `npm start`'s build step: compiles src/ only when it changed since the last build, and says which it did.
// The inputs (every file under src/, the compiler settings, the lockfile, the compiler's version) are hashed
// and the hash kept in dist/; an unchanged hash and a present dist/main.js skip the compiler entirely, since
// even an incremental compile of an unchanged project reads and parses it all (several seconds).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const stampFile = join(root, 'dist', '.build-stamp');

function files(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}

function inputsHash() {
  const hash = createHash('sha256');
  const inputs = [...files(join(root, 'src')), ...['tsconfig.json', 'package.json', 'package-lock.json'].map((f) => join(root, f))];
  const tscPackage = join(root, 'node_modules', 'typescript', 'package.json');
  if (existsSync(tscPackage)) inputs.push(tscPackage);
  for (const path of inputs) {
    if (!existsSync(path)) continue;
    hash.update(relative(root, path)).update('\0').update(readFileSync(path)).update('\0');
  }
  return hash.digest('hex');
}

const wanted = inputsHash();
const built = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : '';
if (built === wanted && existsSync(join(root, 'dist', 'main.js'))) {
  process.stdout.write('build: up to date (src/ unchanged since the last build)\n');
  process.exit(0);
}

process.stdout.write('build: compiling src/ into dist/ (changed since the last build, or never built)...\n');
const started = Date.now();
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(
  process.execPath,
  [tsc, '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', join('dist', '.tsbuildinfo')],
  { cwd: root, stdio: 'inherit' },
);
if (result.status !== 0) {
  process.stderr.write("build: failed (the compiler's messages are above); the gateway was not started\n");
  process.exit(result.status ?? 1);
}
writeFileSync(stampFile, `${wanted}\n`);
process.stdout.write(`build: done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
