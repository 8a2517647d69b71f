import express, { type NextFunction, type Request, type Response } from 'express';
import { GatewayError } from '../../core/kernel/errors.js';

export const BODY_LIMIT = '1mb';

/**
 * DESIGN section 3: merchants send a JSON text whatever the declared content type. The raw body is read
 * (at most 1 MB) and taken as JSON when it starts with `{` or `[`, otherwise as form fields.
 */
export function parseBodyText(text: string): Record<string, unknown> {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') return {};
  if (trimmed[0] === '{' || trimmed[0] === '[') {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (err) {
      throw new GatewayError('INVALID_BODY', `body: is not valid JSON (${(err as Error).message})`, 'body');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new GatewayError('INVALID_BODY', 'body: must be a JSON object', 'body');
    }
    return value as Record<string, unknown>;
  }
  const fields: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(trimmed)) if (!(k in fields)) fields[k] = v;
  return fields;
}

const readRaw = express.raw({ type: () => true, limit: BODY_LIMIT });

/** Reads and parses every POST body into req.body; body-reader failures become typed errors. */
export function gatewayBody(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH') {
    req.body = {};
    next();
    return;
  }
  readRaw(req, res, (err?: unknown) => {
    if (err) {
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') return next(new GatewayError('BODY_TOO_LARGE', `body: must be at most ${BODY_LIMIT}`, 'body'));
      if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
        return next(new GatewayError('UNSUPPORTED_MEDIA_TYPE', 'body: unsupported encoding or charset', 'body'));
      }
      return next(new GatewayError('INVALID_BODY', 'body: could not be read', 'body'));
    }
    try {
      const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      req.body = parseBodyText(raw);
      next();
    } catch (e) {
      next(e);
    }
  });
}
