import { describe, expect, it } from 'vitest';
import { percentile, type Figures } from '../../bench/lib.js';
import { inEpochs, median, type Scenario } from '../../bench/rounds.js';

/**
 * A scenario answering the given req/s, one per run in order, recording the warm-up it was given. Each run's
 * answers take `ms` (one value per run, or every answer's own times), its event loop busy `busy` of the run.
 */
function scenario(name: string, rps: number[], warmups: number[], ms: (number | number[])[] = [], busy: number[] = []): Scenario {
  let i = 0;
  return {
    name,
    run: async (seconds, warmup) => {
      warmups.push(warmup);
      const run = i++;
      const r = rps[run]!;
      const from = 1_000_000 + run * 10_000;
      const total = r * seconds;
      const times = ms[run] ?? 1;
      const latencies = Array.isArray(times) ? Float64Array.from(times) : new Float64Array(total).fill(times);
      return {
        name: '',
        cpuPerRequest: 1e6 / r,
        loadCpuPerRequest: 1,
        rps: r,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        runP99s: [percentile(latencies, 99)],
        mainBusy: busy[run] ?? 1,
        latencies,
        non2xx: 0,
        errors: 0,
        total,
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
    // the headline: the median of the four rounds' ratios (0.40 0.50 0.55 0.60), not the ratio of the sums (0.5125)
    expect(out.medians[1]).toBeCloseTo(0.525, 6);
    expect(out.medians[0]).toBe(1);
    expect(out.rows.map((r) => r.name)).toEqual(['baseline', 'gateway']);
    // requests summed over the four runs of 2 s each
    expect(out.rows[1]!.total).toBe((500 + 400 + 600 + 550) * 2);
    expect(out.rows[1]!.rps).toBeCloseTo((500 + 400 + 600 + 550) / 4, 6);
    expect(out.rows[0]!.rps).toBeCloseTo(1000, 6);
  });

  it("when the runs of a row took different times, then the row's p50 and p99 are over all of their requests, each run's p99 kept", async () => {
    // 1,000 answers a run: the first run's at 10 ms, the second's at 10 ms but for 30 at 40 ms. The second
    // run's own p99 is 40 ms; over the 2,000 answers of the row, 30 slow ones are 1.5 %: its p99 is 40 ms
    // too. A third and fourth run at 10 ms bring them to 0.75 % of 4,000: the row's p99 is 10 ms
    const slow = [...Array<number>(970).fill(10), ...Array<number>(30).fill(40)];
    const out = await inEpochs(
      async () => ({
        scenarios: [scenario('gateway', [500, 500, 500, 500], [], [10, slow, 10, 10], [0.8, 0.9, 1, 1])],
        stop: async () => undefined,
      }),
      { epochs: 1, rounds: 4, seconds: 2, warmup: 0, rewarm: 0 },
    );
    const row = out.rows[0]!;
    expect(row.latencies).toHaveLength(4000);
    expect(row.runP99s).toEqual([10, 40, 10, 10]);
    expect(row.p99).toBe(10);
    expect(row.p50).toBe(10);
    // each run 2 s: the event loop's share over the row is the runs' shares weighted by their time
    expect(row.mainBusy).toBeCloseTo((0.8 + 0.9 + 1 + 1) / 4, 6);
  });

  it('when the median of an odd, an even and an empty set is asked, then it is the middle value, the mean of the middle two, and 0', () => {
    expect(median([0.61, 0.49, 0.55])).toBe(0.55);
    expect(median([0.5, 0.6, 0.4, 0.7])).toBeCloseTo(0.55, 10);
    expect(median([])).toBe(0);
  });

  it('when the nearest-rank percentile is asked, then it answers a value of the set at that rank', () => {
    const times = Float64Array.from([5, 1, 4, 2, 3, 100, 6, 7, 8, 9]);
    expect(percentile(times, 50)).toBe(5);
    expect(percentile(times, 90)).toBe(9);
    expect(percentile(times, 99)).toBe(100);
    expect(percentile(times, 0)).toBe(1);
    expect(percentile(new Float64Array(0), 99)).toBe(0);
    // the set itself is left as it was
    expect([...times]).toEqual([5, 1, 4, 2, 3, 100, 6, 7, 8, 9]);
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
