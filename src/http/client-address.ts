import type { Request } from 'express';

/**
 * The client's address, as `req.ip` gives it: X-Forwarded-For counts only with TRUST_PROXY. Without a trusted
 * proxy that is the socket's own address, read here directly, because Express's getter parses the
 * forwarding header on every call, and the authorise path asks for the address on every call.
 */
export function clientAddress(req: Request): string | undefined {
  return req.app.get('trust proxy') ? req.ip : req.socket.remoteAddress;
}
