import helmet, { type HelmetOptions } from 'helmet';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** One step of helmet's work on a response: a header set, or (no value) removed. */
type HeaderStep = readonly [name: string, value: string | number | readonly string[] | undefined];

/**
 * helmet's headers, set by one middleware. helmet() is a chain of 13 middlewares, each setting one header
 * whose value it worked out when it was made (its Content-Security-Policy too, unless a directive is a
 * function); on every request the chain's calls cost more than the headers. The headers are helmet's own:
 * helmet runs once here, on a stand-in response that records what it sets and removes, and every request
 * gets the same steps in the same order. Options that make helmet read the request (a directive computed per
 * request, such as a nonce) cannot be recorded: the stand-in request throws on any read, and the start fails.
 */
export function securityHeaders(options?: HelmetOptions): RequestHandler {
  const steps: HeaderStep[] = [];
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      steps.push([name, value]);
      return response;
    },
    removeHeader(name: string) {
      steps.push([name, undefined]);
    },
  };
  const request = new Proxy(
    {},
    {
      get(_target, key) {
        throw new Error(`securityHeaders: helmet read the request (${String(key)}); these options are per request`);
      },
    },
  );
  let finished = false;
  helmet(options)(request as Request, response as unknown as Response, (err?: unknown) => {
    if (err) throw err instanceof Error ? err : new Error(String(err));
    finished = true;
  });
  if (!finished) throw new Error('securityHeaders: helmet did not finish at once');
  return (_req: Request, res: Response, next: NextFunction): void => {
    for (const [name, value] of steps) {
      if (value === undefined) res.removeHeader(name);
      else res.setHeader(name, value);
    }
    next();
  };
}

/**
 * helmet's options for the gateway at `baseUrl`: its default headers, except that the CSP's
 * `upgrade-insecure-requests` is sent only when the gateway is reached over https. Over http (a gateway on
 * a developer's machine) it would have the browser upgrade the pages' own form posts and frames to an https
 * origin that does not exist, and a page framed in them inherits it: the example shop's iFrame checkout
 * was blocked for every card. The hosted pages set their own policy (render/pages.ts).
 */
export function gatewayHelmetOptions(baseUrl: string): HelmetOptions {
  const https = new URL(baseUrl).protocol === 'https:';
  return { contentSecurityPolicy: { directives: { upgradeInsecureRequests: https ? [] : null } } };
}
