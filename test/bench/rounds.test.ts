import { describe, expect, it } from 'vitest';
import type { Figures } from '../../bench/lib.js';
import { inEpochs, type Scenario } from '../../bench/rounds.js';

/** A scenario answering the given req/s, one per run in order, recording the warm-up it was given. */
function scenario(name: string, rps: number[], warmups: number[]): Scenario {
  let i = 0;
  return {
    name,
    run: async (seconds, warmup) => {
      warmups.push(warmup);
      const r = rps[i++]!;
      const from = 1_000_000 + i * 10_000;
      return {
        name: '',
        cpuPerRequest: 1e6 / r,
        loadCpuPerRequest: 1,
        rps: r,
        p50: 1,
        p99: i,
        non2xx: 0,
        errors: 0,
        total: r * seconds,
        from,
        to: from + seconds * 1000,
      } satisfies Figures;
    },
  };
}

describe('the bench rounds in epochs of fresh processes', () => {
  it('when a comparison runs in two epochs of two rounds, then each epoch starts and stops its own processes and the rows and ratios span both', async () => {
    const events: string[] = [];
    const warmups: number[] = [];
    // the baseline answers 1000 req/s; the gateway 500 and 400 in the first process, 600 and 550 in the second
    const gateway = [
      [500, 400],
      [600, 550],
    ];
    const out = await inEpochs(
      async (epoch) => {
        events.push(`start ${epoch}`);
        return {
          scenarios: [scenario('baseline', [1000, 1000], warmups), scenario('gateway', gateway[epoch]!, warmups)],
          stop: async () => void events.push(`stop ${epoch}`),
        };
      },
      { epochs: 2, rounds: 2, seconds: 2, warmup: 8, rewarm: 2 },
    );
    expect(events).toEqual(['start 0', 'stop 0', 'start 1', 'stop 1']);
    // every epoch's first round warms its fresh processes up fully
    expect(warmups).toEqual([8, 8, 2, 2, 8, 8, 2, 2]);
    expect(out.ratios[1]).toBe('0.50 0.40 | 0.60 0.55');
    expect(out.rows.map((r) => r.name)).toEqual(['baseline', 'gateway']);
    // requests summed over the four runs of 2 s each
    expect(out.rows[1]!.total).toBe((500 + 400 + 600 + 550) * 2);
    expect(out.rows[1]!.rps).toBeCloseTo((500 + 400 + 600 + 550) / 4, 6);
    expect(out.rows[0]!.rps).toBeCloseTo(1000, 6);
  });

  it('when a run fails, then the epoch still stops its processes and the failure reaches the caller', async () => {
    const events: string[] = [];
    const failing: Scenario = {
      name: 'gateway',
      run: async () => {
        throw new Error('load generator failed');
      },
    };
    await expect(
      inEpochs(async () => ({ scenarios: [failing], stop: async () => void events.push('stopped') }), {
        epochs: 3,
        rounds: 1,
        seconds: 2,
        warmup: 0,
        rewarm: 0,
      }),
    ).rejects.toThrow('load generator failed');
    expect(events).toEqual(['stopped']);
  });
});
