/**
 * The operators' CLI (docs/operators.md): calls a running gateway's /admin API and prints its JSON answer.
 * GATEWAY_URL (default http://localhost:8080) and OPERATOR_KEY (an operator key's secret) say where and who.
 *
 *   npm run --silent operator -- merchants create <merchant_id> --name <name> --account <account_id> [account options]
 *   npm run --silent operator -- merchants show <merchant_id>
 *   npm run --silent operator -- merchants rename <merchant_id> <name>
 *   npm run --silent operator -- merchants suspend|activate <merchant_id>
 *   npm run --silent operator -- accounts add <merchant_id> <account_id> [account options]
 *   npm run --silent operator -- accounts set <merchant_id> <account_id> [account options]
 *   npm run --silent operator -- keys rotate <merchant_id> <account_id> [--overlap <seconds>]
 *   npm run --silent operator -- users invite <merchant_id> <email> [--role admin|viewer]
 *   npm run --silent operator -- users remove <merchant_id> <email>
 *   npm run --silent operator -- audit [--merchant <merchant_id>] [--limit <n>]
 *
 * Account options: --currencies USD,EUR  --capture-mode manual|auto  --website <url>  --connector <code>
 * --settings '<JSON of any other account settings>'.
 */
const USAGE = `usage: operator <merchants|accounts|keys|users|audit> ... (see docs/operators.md)`;

type Options = Record<string, string>;

function parse(argv: string[]): { words: string[]; options: Options } {
  const words: string[] = [];
  const options: Options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith('--')) {
      const value = argv[i + 1];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      options[arg.slice(2)] = value;
      i++;
    } else words.push(arg);
  }
  return { words, options };
}

/** The account settings the options name (anything else through --settings as JSON). */
function accountSettings(options: Options): Record<string, unknown> {
  const out: Record<string, unknown> = options.settings ? (JSON.parse(options.settings) as Record<string, unknown>) : {};
  if (options.currencies) out.currencies = options.currencies.split(',').map((c) => c.trim());
  if (options['capture-mode']) out.capture_mode = options['capture-mode'];
  if (options.website) out.website = options.website;
  if (options.connector) out.routing = { ...((out.routing as object | undefined) ?? {}), connector_code: options.connector };
  return out;
}

function need(value: string | undefined, what: string): string {
  if (!value) throw new Error(`${what} is required\n${USAGE}`);
  return value;
}

const seg = encodeURIComponent;

/** The call a command line names: method, path, body. */
export function callOf(argv: string[]): { method: string; path: string; body?: unknown } {
  const { words, options } = parse(argv);
  const [group, action, a, b] = words;
  switch (`${group} ${group === 'audit' ? '' : action}`.trim()) {
    case 'merchants create':
      return {
        method: 'POST',
        path: '/admin/v1/merchants',
        body: {
          merchant_id: need(a, 'merchant_id'),
          name: need(options.name, '--name'),
          accounts: [{ account_id: need(options.account, '--account'), ...accountSettings(options) }],
        },
      };
    case 'merchants show':
      return { method: 'GET', path: `/admin/v1/merchants/${seg(need(a, 'merchant_id'))}` };
    case 'merchants rename':
      return { method: 'PATCH', path: `/admin/v1/merchants/${seg(need(a, 'merchant_id'))}`, body: { name: need(b, 'name') } };
    case 'merchants suspend':
    case 'merchants activate':
      return {
        method: 'PATCH',
        path: `/admin/v1/merchants/${seg(need(a, 'merchant_id'))}`,
        body: { status: action === 'suspend' ? 'suspended' : 'active' },
      };
    case 'accounts add':
      return {
        method: 'POST',
        path: `/admin/v1/merchants/${seg(need(a, 'merchant_id'))}/accounts`,
        body: { account_id: need(b, 'account_id'), ...accountSettings(options) },
      };
    case 'accounts set':
      return {
        method: 'PATCH',
        path: `/admin/v1/merchants/${seg(need(a, 'merchant_id'))}/accounts/${seg(need(b, 'account_id'))}`,
        body: accountSettings(options),
      };
    case 'keys rotate':
      return {
        method: 'POST',
        path: `/admin/v1/merchants/${seg(need(a, 'merchant_id'))}/accounts/${seg(need(b, 'account_id'))}/sign-keys`,
        body: options.overlap === undefined ? {} : { previous_expires_in_seconds: Number(options.overlap) },
      };
    case 'users invite':
      return {
        method: 'POST',
        path: `/admin/v1/merchants/${seg(need(a, 'merchant_id'))}/portal-users`,
        body: { email: need(b, 'email'), role: options.role ?? 'viewer' },
      };
    case 'users remove':
      return { method: 'DELETE', path: `/admin/v1/merchants/${seg(need(a, 'merchant_id'))}/portal-users/${seg(need(b, 'email'))}` };
    case 'audit': {
      const query = new URLSearchParams();
      if (options.merchant) query.set('merchant_id', options.merchant);
      if (options.limit) query.set('limit', options.limit);
      return { method: 'GET', path: `/admin/v1/audit${query.size ? `?${query}` : ''}` };
    }
    default:
      throw new Error(USAGE);
  }
}

async function main(): Promise<void> {
  const base = (process.env.GATEWAY_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
  const key = process.env.OPERATOR_KEY;
  let call: ReturnType<typeof callOf>;
  try {
    call = callOf(process.argv.slice(2));
    if (!key) throw new Error('OPERATOR_KEY: set it to an operator key’s secret (OPERATOR_KEYS of the gateway)');
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  const res = await fetch(`${base}${call.path}`, {
    method: call.method,
    headers: { authorization: `Bearer ${key}`, ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  });
  const text = await res.text();
  if (text) process.stdout.write(`${text}\n`);
  if (!res.ok) {
    process.stderr.write(`HTTP ${res.status}\n`);
    process.exit(1);
  }
}

if (process.argv[1] && /operator\.(js|ts)$/.test(process.argv[1])) void main();
