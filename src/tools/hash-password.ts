/**
 * Prints the portal password hash (docs/portal.md PHC string) of a password read from standard input, for a
 * merchants file's `portal_users[].password_hash`:  printf '%s' 'a long passphrase' | npm run --silent portal:hash-password
 * One trailing newline is dropped (so `echo` works too); `--ln 14..20` sets the cost (default 15).
 */
import { DEFAULT_COST, hashPassword } from '../core/portal/password.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

const lnArg = process.argv.indexOf('--ln');
const ln = lnArg > 0 ? Number(process.argv[lnArg + 1]) : DEFAULT_COST.ln;
if (!Number.isInteger(ln) || ln < 14 || ln > 20) {
  process.stderr.write('--ln: must be an integer from 14 to 20\n');
  process.exit(2);
}
const password = await readStdin();
if (password.length === 0) {
  process.stderr.write('standard input: no password given\n');
  process.exit(2);
}
process.stdout.write(`${await hashPassword(password, { ...DEFAULT_COST, ln })}\n`);
