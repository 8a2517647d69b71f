import { createServer, type Server } from 'node:http';
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
    },
    app,
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
  return server;
}
