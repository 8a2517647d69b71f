import { readFileSync } from 'node:fs';
import { signedValuesFor } from '../http/middleware/authenticate.js';
import { CALLS } from '../http/calls/index.js';
import { signValues, type SignatureForm } from '../core/kernel/signing.js';

/**
 * Signs a request body the way a merchant integration must (docs/api.md, "Signatures"), for trying the API
 * by hand. Prints the body with encryption_data set; see USAGE. Every mistake is a one-line message and exit
 * code 2, never a stack trace.
 */
/** The declared calls' paths, a few to a line. */
function callList(): string {
  const lines: string[] = [];
  let line = '';
  for (const { path } of CALLS) {
    if (line && line.length + path.length > 100) {
      lines.push(line);
      line = '';
    }
    line += (line ? ' ' : '') + path;
  }
  return [...lines, line].join('\n       ');
}

const USAGE = `usage: node dist/tools/sign-request.js [--keep-spaces] <path> [json body]

Prints the JSON body with its encryption_data set, for the call at <path> (such as /v1/authorise). The body
is the second argument, or standard input. The key is SIGN_KEY, else the demo merchant's key.

  --keep-spaces   sign the values as sent, spaces kept (the default removes every space from each value,
                  the gateway's own form; the gateway accepts both)
  -h, --help      print this help

Calls: ${callList()}
`;

function fail(message: string): never {
  process.stderr.write(`sign-request: ${message}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const form: SignatureForm = args.includes('--keep-spaces') ? 'as-sent' : 'spaces-removed';
const unknownFlag = args.find((a) => a.startsWith('-') && a !== '--keep-spaces');
if (unknownFlag) fail(`unknown option ${unknownFlag}\n\n${USAGE}`);
const [path, given, ...extra] = args.filter((a) => a !== '--keep-spaces');
if (!path) {
  process.stderr.write(USAGE);
  process.exit(2);
}
if (extra.length > 0) fail('give the JSON body as one argument (quote it), or on standard input');
let text: string;
try {
  text = given ?? readFileSync(0, 'utf8');
} catch {
  fail('no JSON body given (second argument or standard input)');
}
let body: unknown;
try {
  body = JSON.parse(text);
} catch (err) {
  fail(`the body is not valid JSON: ${(err as Error).message}`);
}
if (typeof body !== 'object' || body === null || Array.isArray(body)) fail('the body must be a JSON object');
const values = signedValuesFor(path, body as Record<string, unknown>);
if (!values) fail(`${path} is not a signed call\n\n${USAGE}`);
const signed = {
  ...(body as Record<string, unknown>),
  encryption_data: signValues(values, process.env.SIGN_KEY ?? 'demo-sign-key-change-me', form),
};
process.stdout.write(`${JSON.stringify(signed)}\n`);
