import { chmodSync, linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

/** Where the demo merchant's portal password is kept: the project's folder (next to src/ and dist/ alike), git-ignored. */
export const DEMO_PASSWORD_FILE = fileURLToPath(new URL('../.demo-portal-password', import.meta.url));

export interface DemoPassword {
  password: string;
  /** the file it is kept in; undefined when it could not be written (a read-only folder): made for this run only */
  file: string | undefined;
}

const FORMAT = /^[\x21-\x7e]{12,128}$/;

/**
 * The demo portal password, the same at every start of this checkout: read from its file, or made once and
 * written there readable by this user only (0600). The file is created whole or not at all (written beside it,
 * then linked into place), so two starts at once read the same password. A password of the shopper's own choice
 * may be written into the file; deleting the file makes a new one at the next start.
 */
export function demoPortalPassword(file: string = DEMO_PASSWORD_FILE): DemoPassword {
  const kept = readKept(file);
  if (kept !== undefined) return { password: kept, file };
  const password = randomBytes(12).toString('base64url');
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(draft, `${password}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(draft, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(draft);
    }
  } catch {
    return { password, file: undefined };
  }
  return { password: readKept(file) ?? password, file };
}

/** The kept password; undefined when there is no file. A file others may read is made private; a bad one is an error. */
function readKept(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const password = text.trim();
  if (!FORMAT.test(password))
    throw new Error(`${file} must hold one password of 12 to 128 visible characters, no spaces (delete the file to have a new one made)`);
  return password;
}
