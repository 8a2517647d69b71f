import { readFileSync } from 'node:fs';
import { LOGO_TYPES } from './core/records/branding.js';

/** The operator's logo (OPERATOR_LOGO_FILE) as read at start, shown in the hosted pages' trust line. */
export interface OperatorLogo {
  /** file extension, lower case: one of LOGO_TYPES */
  ext: string;
  body: Buffer;
}

const LOCAL_HOST = /^(localhost|.*\.localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/i;

/**
 * The operator's name when OPERATOR_NAME is unset: the host name of BASE_URL without its port (pay.example.com),
 * which a shopper can recognise in the address bar; for a local address (localhost, an IP address), which names
 * nobody, the product's name.
 */
export function defaultOperatorName(baseUrl: string): string {
  const host = new URL(baseUrl).hostname;
  return LOCAL_HOST.test(host) ? 'Payment gateway' : host;
}

const OPERATOR_LOGO_MAX = 256 * 1024;

/** OPERATOR_LOGO_FILE: a readable .png, .jpg, .jpeg, .webp or .svg file of at most 256 KB. */
export function readOperatorLogo(path: string | undefined): OperatorLogo | undefined {
  if (path === undefined || path === '') return undefined;
  const ext = (path.split('.').pop() ?? '').toLowerCase();
  if (!/\.\w+$/.test(path) || !(ext in LOGO_TYPES))
    throw new Error(`must be a file ending in .png, .jpg, .jpeg, .webp or .svg (it is "${path.slice(0, 60)}")`);
  let body: Buffer;
  try {
    body = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'this user may not read it'
          : code === 'EISDIR'
            ? 'it is a folder'
            : (err as Error).message;
    throw new Error(`cannot read ${path}: ${why}`, { cause: err });
  }
  if (body.length === 0) throw new Error(`${path} is empty`);
  if (body.length > OPERATOR_LOGO_MAX) throw new Error(`${path} is over 256 KB; use a smaller image`);
  return { ext, body };
}
