import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedNotification {
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  fields: Record<string, string>;
}

/**
 * A merchant's notification endpoint on loopback: a real HTTP server that records what it receives and
 * answers each request with the next status of `answers` (the last one repeats).
 */
export class NotificationReceiver {
  readonly received: ReceivedNotification[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(
    public answers: number[] = [200],
    /** extra headers per answer, e.g. a Location for a redirect */
    public answerHeaders: Record<string, string> = {},
    /** real-time delay before answering, to make two senders overlap */
    public delayMs = 0,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/notify`;
  }

  /** Starts listening (on `port` when given, e.g. the same port again after a stop). */
  async start(port = 0): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        this.received.push({ headers: req.headers, rawBody, fields: Object.fromEntries(new URLSearchParams(rawBody)) });
        const status = this.answers[Math.min(this.received.length - 1, this.answers.length - 1)]!;
        setTimeout(() => {
          res.writeHead(status, this.answerHeaders);
          res.end(status < 300 ? 'OK' : 'no');
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
