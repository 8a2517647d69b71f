import { lookup } from 'node:dns/promises';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { NotificationPost, NotificationTransport, PostResult } from '../core/notifications/delivery.js';
import { isBlockedAddress } from '../core/notifications/target.js';

async function resolveAll(hostname: string): Promise<string[]> {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/**
 * Resolves at connect time and dials only an address that passed the check, so a name that resolved to a
 * public address for the check cannot switch to a private one for the connection (DNS rebinding).
 */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { all: true, verbatim: true })
      .then((found) => {
        const usable = allowPrivate ? found : found.filter((a) => !isBlockedAddress(a.address));
        if (usable.length === 0 || usable.length < found.length) {
          throw Object.assign(new Error(`notify_url host ${hostname} resolves to a refused address`), { code: 'EREFUSED' });
        }
        if ((options as { all?: boolean }).all) (callback as (e: null, a: typeof usable) => void)(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      })
      .catch((err: NodeJS.ErrnoException) => callback(err, '', 0));
  };
}

/** POSTs one notification; 2xx is success, anything else (3xx too: redirects are never followed) a failure. */
function post(req: NotificationPost): Promise<PostResult> {
  return new Promise((resolve) => {
    const url = new URL(req.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const options: RequestOptions = {
      method: 'POST',
      headers: { ...req.headers, 'Content-Length': String(Buffer.byteLength(req.body)) },
      lookup: guardedLookup(req.allowPrivate),
      agent: false,
    };
    let settled = false;
    const finish = (r: PostResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const outgoing = send(url, options, (res) => {
      const status = res.statusCode ?? 0;
      // the answer's body is not needed; read it so the socket closes cleanly
      res.resume();
      res.on('end', () =>
        finish(
          status >= 200 && status < 300
            ? { ok: true, status }
            : { ok: false, status, error: status >= 300 && status < 400 ? `redirect ${status} not followed` : `answered HTTP ${status}` },
        ),
      );
      res.on('error', (err) => finish({ ok: false, status, error: err.message }));
    });
    const timer = setTimeout(() => {
      outgoing.destroy(new Error(`no answer within ${req.timeoutMs} ms`));
    }, req.timeoutMs);
    outgoing.on('error', (err) => finish({ ok: false, error: err.message }));
    outgoing.end(req.body);
  });
}

export const httpNotificationTransport: NotificationTransport = { resolve: resolveAll, post };
