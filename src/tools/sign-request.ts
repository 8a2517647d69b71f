import { readFileSync } from 'node:fs';
import { signedValuesFor } from '../http/middleware/authenticate.js';
import { signValues, type SignatureForm } from '../core/kernel/signing.js';

/**
 * Signs a request body the way a merchant integration must (DESIGN section 2), for trying the API by hand:
 *   node dist/tools/sign-request.js [--keep-spaces] /v1/authorise '{"merchant_id":"1000001", ...}'
 * (or the JSON on standard input). The key comes from SIGN_KEY, else the demo merchant's key.
 * Prints the body with encryption_data set. The gateway accepts two forms of a request signature: by default
 * the values are signed with their spaces removed (the gateway's own form); `--keep-spaces` signs them as
 * sent, spaces kept, as some existing integrations of this API family do.
 */
const args = process.argv.slice(2);
const form: SignatureForm = args.includes('--keep-spaces') ? 'as-sent' : 'spaces-removed';
const [path, text = readFileSync(0, 'utf8')] = args.filter((a) => a !== '--keep-spaces');
if (!path) {
  process.stderr.write('usage: node dist/tools/sign-request.js [--keep-spaces] <path such as /v1/authorise> [json body]\n');
  process.exit(2);
}
const body = JSON.parse(text) as Record<string, unknown>;
const values = signedValuesFor(path, body);
if (!values) {
  process.stderr.write(`unknown call: ${path}\n`);
  process.exit(2);
}
body.encryption_data = signValues(values, process.env.SIGN_KEY ?? 'demo-sign-key-change-me', form);
process.stdout.write(`${JSON.stringify(body)}\n`);
