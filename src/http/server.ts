import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';

/** How long and how many clients may hold the server (README configuration; docs/security.md). */
export interface ServerLimits {
  /** a client must send all request headers within this (408 and close otherwise) */
  headersTimeoutMs: number;
  /** a client must send the whole request, body included, within this */
  requestTimeoutMs: number;
  /** idle keep-alive connections are closed after this */
  keepAliveTimeoutMs: number;
  /** connections beyond this are refused at once (0: no cap) */
  maxConnections: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  maxConnections: 1024,
};

/**
 * A constructor of node's `base` whose objects are made with `proto` (the app's request or response) as
 * their prototype: what Express would otherwise set on each request after node has made it. Node's two
 * constructors are plain functions, called on the new object; were one ever a class, node's own is kept
 * (and Express sets the prototype, as before). Reflect.construct would also make them, but cost more than
 * the swap it saves (a bare Express route at 431 us of CPU per request, against 235 with the swap).
 */
export function madeWith<C extends typeof IncomingMessage | typeof ServerResponse>(base: C, proto: object): C | undefined {
  if (Function.prototype.toString.call(base).startsWith('class')) return undefined;
  const init = base as unknown as (this: object, ...args: unknown[]) => void;
  function Made(this: object, ...args: unknown[]): void {
    init.apply(this, args);
  }
  Made.prototype = proto;
  return Made as unknown as C;
}

function withPrototypes(app: Express): { IncomingMessage?: typeof IncomingMessage; ServerResponse?: typeof ServerResponse } {
  const request = madeWith(IncomingMessage, app.request);
  const response = madeWith(ServerResponse, app.response);
  return request && response ? { IncomingMessage: request, ServerResponse: response } : {};
}

/**
 * The HTTP server around the app, with the limits that keep slow clients (slowloris, slow bodies) from
 * holding connections. Node checks the two timeouts every `connectionsCheckingInterval`, so that interval is
 * a fraction of the shorter one.
 */
export function createGatewayServer(app: Express, limits: ServerLimits): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4))),
      // Express gives every request and response its own prototypes (Object.setPrototypeOf) when it takes
      // them. Made with those prototypes from the start, they are already what Express wants, so its step
      // changes nothing; swapped after construction, every object changed shape, and each property access
      // in node's HTTP code and in Express then met two shapes (the gain measured: docs/performance.md,
      // "Library bypasses").
      ...withPrototypes(app),
    },
    app,
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
  return server;
}
