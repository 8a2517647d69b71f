import { request as httpRequest } from 'node:http';
import { adyenLibrary } from './library.js';
import type { Config } from '@adyen/api-library';

type Options = { headers?: Record<string, string>; idempotencyKey?: string; method?: string; params?: Record<string, string> };

/**
 * The Adyen library's HTTP client speaks only HTTPS; an `api_base` of `http://` (a local stub in tests, on
 * loopback) is reached by this one, which sends what the library's client sends (API key, Idempotency-Key,
 * JSON) and fails the way it fails (an HttpClientException with the status for an answer outside 2xx).
 */
export class PlainHttpAdyenClient {
  constructor(private readonly timeoutMs: number) {}

  request(endpoint: string, json: string | Buffer, config: Config, _isApiKeyRequired: boolean, options: Options = {}): Promise<string> {
    const url = new URL(endpoint);
    if (options.params) url.search = new URLSearchParams(options.params).toString();
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-API-Key': config.apiKey ?? '', ...options.headers };
    if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, { method: options.method ?? 'POST', headers, timeout: this.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) return resolve(body);
          reject(
            new (adyenLibrary().HttpClientException)({
              message: `HTTP Exception: ${status}. ${body}`,
              statusCode: status,
              responseBody: body,
            }),
          );
        });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end(json);
    });
  }
}
