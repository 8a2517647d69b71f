import { randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { PORTAL_HASH } from '../records/directory.js';

/** scrypt's cost: N = 2^ln, block size r, parallelism p. */
export interface HashCost {
  ln: number;
  r: number;
  p: number;
}

/** Cost of new hashes: N = 2^15, r = 8, p = 1 (OWASP's scrypt floor is N = 2^17 at p = 1 for 64 MiB; 2^15 keeps a login near 100 ms). */
export const DEFAULT_COST: HashCost = { ln: 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, cost: HashCost): Promise<Buffer> {
  const N = 2 ** cost.ln;
  const options: ScryptOptions = { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const b64 = (b: Buffer): string => b.toString('base64').replace(/=+$/, '');

/** The PHC string of docs/portal.md for a password: `$scrypt$ln=15,r=8,p=1$<salt>$<hash>`. */
export async function hashPassword(password: string, cost: HashCost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${b64(salt)}$${b64(key)}`;
}

/** The same PHC string, computed synchronously (only at start, for the demo merchant's portal user). */
export function hashPasswordSync(password: string, cost: HashCost = DEFAULT_COST): string {
  const salt = randomBytes(16);
  const N = 2 ** cost.ln;
  const key = scryptSync(password.normalize('NFC'), salt, KEY_LENGTH, { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r });
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${b64(salt)}$${b64(key)}`;
}

/** The cost a PHC hash was made with (undefined for a malformed one). */
export function costOf(phc: string): HashCost | undefined {
  const m = PORTAL_HASH.exec(phc);
  return m ? { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) } : undefined;
}

/**
 * A hash of a password nobody has, at the given cost: compared when the e-mail is unknown, so the check
 * takes as long as a real user's (an unknown e-mail at another cost was measurably faster or slower).
 */
export function decoyHash(cost: HashCost): string {
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${'A'.repeat(22)}$${'A'.repeat(43)}`;
}

/**
 * True when the password matches the PHC hash (constant-time compare). A malformed hash never matches;
 * undefined (no such user) is checked against a decoy at the default cost and never matches.
 */
export async function verifyPassword(password: string, phc: string | undefined): Promise<boolean> {
  const m = PORTAL_HASH.exec(phc ?? '') ?? PORTAL_HASH.exec(decoyHash(DEFAULT_COST))!;
  const cost = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  const expected = Buffer.from(m[5]!, 'base64');
  const key = await derive(password, Buffer.from(m[4]!, 'base64'), cost);
  return phc !== undefined && m[0] === phc && key.length === expected.length && timingSafeEqual(key, expected);
}
