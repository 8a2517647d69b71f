#!/usr/bin/env node
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ENDPOINTS, signRequest, type Endpoint, type SignatureForm } from './signing.js';
import { GatewayApiError, GatewayClient } from './client.js';
import { verifyAnswer, verifyNotification, verifyReturnQuery } from './verify.js';
import { parseRespon } from './respon.js';

const USAGE = `gateway-sdk: sign, call and verify the payment gateway's calls; watch notifications locally.

  gateway-sdk sign <endpoint> <json|->           print the body with encryption_data (--form as-sent for the other form)
  gateway-sdk call <endpoint> <json|->           sign, send, print the answer, check its signature
  gateway-sdk verify answer <endpoint> <json|xml|->
  gateway-sdk verify return <query string>       the signed result on the shopper's return_url
  gateway-sdk verify notification <body|-> [<X-Signature>]
  gateway-sdk listen [--port 4242] [--forward URL]   print, verify and forward each notification
  gateway-sdk dispute evidence <dispute_id> --file notes.txt [--field F] [--draft]
                                                 send a file as a dispute's evidence (uncategorized_text unless
                                                 --field names another; --draft saves it without sending)
  gateway-sdk dispute accept <dispute_id>        accept a dispute (it is lost at once)
  gateway-sdk clock advance <test_clock_id> <frozen_time> [--no-wait]
                                                 move a test clock (YYYYMMDDhhmmss) and wait until it is ready

endpoints: ${ENDPOINTS.join(', ')}
settings (flags or environment): --url GATEWAY_URL (http://localhost:8080), --merchant GATEWAY_MERCHANT_ID,
  --account GATEWAY_ACCOUNT_ID, --key GATEWAY_SIGN_KEY (default: the gateway's demo merchant)
`;

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    merchant: { type: 'string' },
    account: { type: 'string' },
    key: { type: 'string' },
    form: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    forward: { type: 'string' },
    'idempotency-key': { type: 'string' },
    file: { type: 'string' },
    field: { type: 'string' },
    draft: { type: 'boolean' },
    'no-wait': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});

const settings = {
  baseUrl: flags.url ?? process.env.GATEWAY_URL ?? 'http://localhost:8080',
  merchantId: flags.merchant ?? process.env.GATEWAY_MERCHANT_ID ?? '1000001',
  accountId: flags.account ?? process.env.GATEWAY_ACCOUNT_ID ?? '1000001001',
  signKey: flags.key ?? process.env.GATEWAY_SIGN_KEY ?? 'demo-sign-key-change-me',
};

class UsageError extends Error {}

const input = (arg: string | undefined, what: string): string => {
  if (arg === undefined) throw new UsageError(`missing ${what}`);
  return arg === '-' ? readFileSync(0, 'utf8') : arg;
};

function endpointOf(arg: string | undefined): Endpoint {
  const e = (arg ?? '').replace(/^\/?(v1\/)?/, '') as Endpoint;
  if (!ENDPOINTS.includes(e)) throw new UsageError(`unknown endpoint ${arg ?? '(none)'}; one of ${ENDPOINTS.join(', ')}`);
  return e;
}

function jsonBody(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new UsageError('the body must be a JSON object');
}

const print = (v: unknown) => process.stdout.write(`${typeof v === 'string' ? v : JSON.stringify(v, null, 2)}\n`);

async function sign(): Promise<number> {
  const endpoint = endpointOf(positionals[1]);
  const body = { merchant_id: settings.merchantId, account_id: settings.accountId, ...jsonBody(input(positionals[2], 'JSON body')) };
  const form = (flags.form ?? 'spaces-removed') as SignatureForm;
  if (form !== 'spaces-removed' && form !== 'as-sent') throw new UsageError('--form is spaces-removed or as-sent');
  process.stdout.write(`${JSON.stringify(signRequest(endpoint, body, settings.signKey, form))}\n`);
  return 0;
}

async function call(): Promise<number> {
  const endpoint = endpointOf(positionals[1]);
  const client = new GatewayClient(settings);
  try {
    const idem = flags['idempotency-key'];
    print(await client.call(endpoint, jsonBody(input(positionals[2], 'JSON body')), idem ? { idempotencyKey: idem } : {}));
    if (endpoint !== 'checkout') process.stderr.write('answer signature: ok\n');
    return 0;
  } catch (err) {
    if (err instanceof GatewayApiError) {
      print({ status: err.status, code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}) });
      return 1;
    }
    throw err;
  }
}

function verify(): number {
  const kind = positionals[1];
  let verdict: { ok: boolean; reason?: string };
  if (kind === 'answer') {
    const endpoint = endpointOf(positionals[2]);
    const text = input(positionals[3], 'answer').trim();
    verdict = verifyAnswer(endpoint, text.startsWith('<') ? { ...parseRespon(text) } : jsonBody(text), settings.signKey);
  } else if (kind === 'return') {
    verdict = verifyReturnQuery(input(positionals[2], 'query string'), settings);
  } else if (kind === 'notification') {
    verdict = verifyNotification({
      rawBody: input(positionals[2], 'notification body').trim(),
      xSignature: positionals[3],
      signKey: settings.signKey,
    });
  } else throw new UsageError('verify answer|return|notification');
  print(verdict.ok ? 'signature: ok' : `signature: FAILED: ${verdict.reason}`);
  return verdict.ok ? 0 : 1;
}

const EVIDENCE_FIELDS = ['product_description', 'customer_communication', 'shipping_tracking', 'uncategorized_text'];

/** `dispute evidence <id> --file F` and `dispute accept <id>`: the answer printed; a refusal (return_status 0) exits 1. */
async function dispute(): Promise<number> {
  const [, action, disputeId] = positionals;
  if (!disputeId) throw new UsageError('missing dispute_id');
  const client = new GatewayClient(settings);
  let answer: { return_status: string };
  try {
    if (action === 'evidence') {
      if (!flags.file) throw new UsageError('--file names the evidence file');
      const field = flags.field ?? 'uncategorized_text';
      if (!EVIDENCE_FIELDS.includes(field)) throw new UsageError(`--field is one of ${EVIDENCE_FIELDS.join(', ')}`);
      const text = readFileSync(flags.file, 'utf8');
      answer = await client.disputeEvidence({ dispute_id: disputeId, [field]: text, submit: flags.draft ? '0' : '1' });
    } else if (action === 'accept') {
      answer = await client.disputeAccept({ dispute_id: disputeId });
    } else throw new UsageError('dispute evidence|accept');
  } catch (err) {
    if (err instanceof GatewayApiError) {
      print({ status: err.status, code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}) });
      return 1;
    }
    throw err;
  }
  print(answer);
  process.stderr.write('answer signature: ok\n');
  return answer.return_status === '1' ? 0 : 1;
}

/** A local notify_url: prints each notification as a JSON line, verifies it, forwards it when asked. */
async function listen(): Promise<number> {
  const forward = flags.forward;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const verdict = verifyNotification({ rawBody: raw, xSignature: req.headers['x-signature'], signKey: settings.signKey });
        const f = verdict.fields;
        const line: Record<string, unknown> = {
          received_at: new Date().toISOString(),
          path: req.url,
          notify_type: f.notify_type,
          notify_id: f.notify_id,
          order_no: f.order_no ?? f.request_id ?? f.recurring_id,
          verified: verdict.ok,
          ...(verdict.ok ? {} : { reason: verdict.reason }),
          fields: f,
        };
        let status = verdict.ok ? 200 : 400;
        if (forward) {
          try {
            const answer = await fetch(forward, {
              method: 'POST',
              headers: {
                'content-type': req.headers['content-type'] ?? 'application/x-www-form-urlencoded',
                ...(req.headers['x-signature'] ? { 'x-signature': String(req.headers['x-signature']) } : {}),
              },
              body: raw,
            });
            status = answer.status;
            line.forwarded = { url: forward, status };
          } catch (err) {
            status = 502;
            line.forwarded = { url: forward, error: (err as Error).message };
          }
        }
        process.stdout.write(`${JSON.stringify(line)}\n`);
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status < 300 ? 'OK' : 'not accepted');
      })();
    });
  });
  const port = Number(flags.port ?? 4242);
  await new Promise<void>((resolve) => server.listen(port, flags.host ?? '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  process.stderr.write(
    `listening on http://${address.address}:${address.port}/ (use it as notify_url)${forward ? `, forwarding to ${forward}` : ''}\n`,
  );
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return new Promise<number>(() => undefined);
}

/** `clock advance <id> <time>`: the advance started, then the clock polled until ready (unless --no-wait); exits 1 on a refusal. */
async function clock(): Promise<number> {
  const [, action, id, time] = positionals;
  if (action !== 'advance') throw new UsageError('clock advance <test_clock_id> <frozen_time>');
  if (!id || !time) throw new UsageError('clock advance needs a test_clock_id and a frozen_time (YYYYMMDDhhmmss)');
  const client = new GatewayClient(settings);
  try {
    let state: { test_clock_id: string; frozen_time: string; clock_status: string } = await client.testClockAdvance({
      test_clock_id: id,
      frozen_time: time,
    });
    for (let i = 0; !flags['no-wait'] && state.clock_status !== 'ready' && i < 1200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      state = (await client.retrievalTestClock({ test_clock_id: id })).test_clocks[0]!;
    }
    print(state);
    return flags['no-wait'] || state.clock_status === 'ready' ? 0 : 1;
  } catch (err) {
    if (err instanceof GatewayApiError) {
      print({ status: err.status, code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}) });
      return 1;
    }
    throw err;
  }
}

async function main(): Promise<number> {
  if (flags.help || positionals.length === 0) {
    process.stdout.write(USAGE);
    return positionals.length === 0 && !flags.help ? 2 : 0;
  }
  switch (positionals[0]) {
    case 'sign':
      return sign();
    case 'call':
      return call();
    case 'verify':
      return verify();
    case 'listen':
      return listen();
    case 'dispute':
      return dispute();
    case 'clock':
      return clock();
    default:
      throw new UsageError(`unknown command ${positionals[0]}`);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // fetch says only "fetch failed": the address tried and the reason are what a reader needs
    const cause = (err as { cause?: NodeJS.ErrnoException }).cause;
    if (err instanceof TypeError && err.message === 'fetch failed') {
      const why = cause?.code === 'ECONNREFUSED' ? 'connection refused' : (cause?.code ?? cause?.message ?? 'no answer');
      process.stderr.write(
        `gateway-sdk: cannot reach the gateway at ${settings.baseUrl} (${why}); start it, or set GATEWAY_URL or --url to where it runs\n`,
      );
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`gateway-sdk: ${(err as Error).message}\n${err instanceof UsageError ? `\n${USAGE}` : ''}`);
    process.exitCode = 2;
  },
);
