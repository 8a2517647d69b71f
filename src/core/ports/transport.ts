/** Resolves a host name to its addresses (all of them); an adapter supplies it (node:dns). */
export type HostResolver = (hostname: string) => Promise<string[]>;

/** One notification POST as the transport makes it. */
export interface NotificationPost {
  url: string;
  /** application/x-www-form-urlencoded text */
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** false: connect only to public addresses (checked again on the address actually dialled) */
  allowPrivate: boolean;
}

export type PostResult = { ok: true; status: number } | { ok: false; status?: number; error: string };

/**
 * Sends notifications over the network; the adapter (src/outbound/http-transport.ts) is node:http. It never
 * follows a redirect: a 3xx answer is a failed attempt, so a redirect cannot lead to a private address.
 */
export interface NotificationTransport {
  resolve: HostResolver;
  post(req: NotificationPost): Promise<PostResult>;
}
