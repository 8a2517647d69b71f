import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../../core/kernel/errors.js';
import type { Logger } from '../../core/ports/deps.js';
import { renderPortal } from '../render/portal.js';
import type { Account } from '../../core/records/directory.js';
import { refusalDocument, wantsXmlRefusal } from '../render/refusal.js';
import { errorsCarryReturnStatus } from '../calls/index.js';

/** The issuer_url's last segment is the challenge secret: never written to the logs. */
export function loggedPath(path: string): string {
  return path.replace(/^(\/v1\/3ds\/[^/]+\/[^/]+\/).+$/, '$1[secret]');
}

/**
 * The one place where an error becomes an HTTP status and a body: `{code, message, field?, request_id}`, or for
 * /v1/authorise a `respon` refusal document unless the caller prefers JSON (docs/api.md#bodies), or for the portal a page.
 */
export function errorHandler(log: Logger, timezone = 'UTC') {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    let error: GatewayError;
    if (err instanceof GatewayError) {
      error = err;
    } else if ((err as { type?: string })?.type === 'entity.too.large') {
      error = new GatewayError('BODY_TOO_LARGE', 'body: is over the size limit of this call', 'body');
    } else if (err instanceof URIError) {
      // the router could not decode a path segment (a stray %): the address names no page
      error = new GatewayError('NOT_FOUND', `no such endpoint: ${req.method} ${loggedPath(req.path)}`);
    } else {
      error = new GatewayError('INTERNAL', 'internal error; the request id identifies it in the logs');
    }
    const requestId = String(res.locals.requestId ?? '');
    if (error.status >= 500) {
      log.error(
        {
          err:
            err instanceof Error
              ? { name: err.name, message: err.message, stack: err.stack, cause: (err as { cause?: unknown }).cause }
              : err,
          request_id: requestId,
          path: loggedPath(req.path),
        },
        'request failed',
      );
    }
    if (res.headersSent) return;
    // a 503 is "try again" (the store or the acquirer did not answer): say when
    const retryAfter = error.retryAfter ?? (error.status === 503 ? 1 : undefined);
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    // the portal's pages are HTML: its errors are a page with the same message, status and request id
    if (req.path === '/portal' || req.path.startsWith('/portal/')) {
      return renderPortal(res, timezone, 'error', { code: error.code, message: error.message, requestId }, error.status);
    }
    if (wantsXmlRefusal(req)) {
      const account = res.locals.account as Account | undefined;
      res
        .status(error.status)
        .type('application/xml')
        .send(refusalDocument(req, error, requestId, account));
      return;
    }
    const body: Record<string, string> = { code: error.code, message: error.message };
    if (error.field) body.field = error.field;
    if (errorsCarryReturnStatus(req.path)) body.return_status = '0';
    body.request_id = requestId;
    res.status(error.status).json(body);
  };
}

export function notFound(req: Request, _res: Response, next: NextFunction): void {
  next(new GatewayError('NOT_FOUND', `no such endpoint: ${req.method} ${req.path}`));
}
