import { describe, expect, it } from 'vitest';
import { redisCommandCosts } from '../../bench/profile.js';

// INFO commandstats as Redis 7.0 writes it (CRLF line ends, subcommands named with a bar)
const STATS = [
  '# Commandstats',
  'cmdstat_set:calls=20000,usec=42000,usec_per_call=2.10,rejected_calls=0,failed_calls=0',
  'cmdstat_evalsha:calls=3200,usec=1038000,usec_per_call=324.38,rejected_calls=0,failed_calls=0',
  'cmdstat_hset:calls=60000,usec=70000,usec_per_call=1.17,rejected_calls=0,failed_calls=0',
  'cmdstat_config|resetstat:calls=1,usec=57,usec_per_call=57.00,rejected_calls=0,failed_calls=0',
  'cmdstat_script|load:calls=2,usec=90,usec_per_call=45.00,rejected_calls=0,failed_calls=0',
  '',
].join('\r\n');

describe("the bench's Redis commands per request", () => {
  it('when commandstats are divided by the requests served, then each command has its calls and µs per request, costliest first', () => {
    expect(redisCommandCosts(STATS, 20_000)).toEqual([
      { command: 'evalsha', callsPerRequest: 0.16, usPerRequest: 51.9 },
      { command: 'hset', callsPerRequest: 3, usPerRequest: 3.5 },
      { command: 'set', callsPerRequest: 1, usPerRequest: 2.1 },
    ]);
  });

  it('when a command ran less than once per 100 requests (start-up, the bench itself), then it is left out', () => {
    expect(redisCommandCosts(STATS, 20_000).map((c) => c.command)).not.toContain('script|load');
    expect(redisCommandCosts(STATS, 100).map((c) => c.command)).toContain('script|load');
  });

  it('when no request was served, then no command has a figure', () => {
    expect(redisCommandCosts(STATS, 0)).toEqual([]);
  });
});
