import { combine, type Figures } from './lib.js';

/** A load the bench measures and compares (the baseline, a gateway's route). */
export interface Scenario {
  name: string;
  /** one measured run of `seconds` after `warmup` seconds of load (the warm-up in the first round, the re-warm later) */
  run(seconds: number, warmup: number): Promise<Figures>;
}

/** What one epoch runs: its scenarios, and how to stop the processes started for it. */
export interface Epoch {
  scenarios: Scenario[];
  stop(): Promise<void>;
}

export interface RoundPlan {
  /** epochs, each with its processes started afresh */
  epochs: number;
  /** rounds in each epoch */
  rounds: number;
  /** seconds of each measured run */
  seconds: number;
  /** seconds of load before a scenario's first run in an epoch (a fresh process: JIT, heap, pools) */
  warmup: number;
  /** seconds of load before its later runs (an idle process's heap may have been shrunk meanwhile) */
  rewarm: number;
}

/**
 * The scenarios in `rounds` rounds, every round running each scenario in turn: the scenarios (the baseline
 * and the gateway, or two set-ups of the gateway) are then measured side by side through the whole run, so
 * the machine's noise (which moves one run against the next by 10 % and more, within seconds) falls on all
 * of them alike. `runs[i]`: scenario i's runs; `ratios[i]`: each round's req/s of scenario i over the first
 * scenario's.
 */
export async function inRounds(
  scenarios: Scenario[],
  plan: Omit<RoundPlan, 'epochs'>,
): Promise<{ runs: Figures[][]; ratios: string[]; roundRatios: number[][] }> {
  const runs: Figures[][] = scenarios.map(() => []);
  for (let round = 0; round < plan.rounds; round++) {
    for (const [i, scenario] of scenarios.entries())
      runs[i]!.push(await scenario.run(plan.seconds, round === 0 ? plan.warmup : plan.rewarm));
  }
  const roundRatios = runs.map((own) => own.map((r, round) => r.rps / runs[0]![round]!.rps));
  return { runs, ratios: roundRatios.map((own) => own.map((r) => r.toFixed(2)).join(' ')), roundRatios };
}

/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * inRounds in `epochs` epochs, `start` starting the processes of each afresh and the epoch's `stop` stopping
 * them (also when a run fails). A process keeps its own speed for its life (what V8 compiled, where its code
 * and memory landed), so epochs put that noise on every side too. One row per scenario over every epoch's
 * runs (combine); each round's ratio to the first scenario, epochs parted by `|`; and the median of those
 * ratios, the headline figure: one round that a neighbour's burst of work slowed (on either side) moves the
 * median less than the ratio of the summed req/s.
 */
export async function inEpochs(
  start: (epoch: number) => Promise<Epoch>,
  plan: RoundPlan,
): Promise<{ rows: Figures[]; ratios: string[]; medians: number[] }> {
  const runs: Figures[][] = [];
  const ratios: string[][] = [];
  const each: number[][] = [];
  let names: string[] = [];
  for (let epoch = 0; epoch < plan.epochs; epoch++) {
    const e = await start(epoch);
    try {
      names = e.scenarios.map((s) => s.name);
      const r = await inRounds(e.scenarios, plan);
      r.runs.forEach((own, i) => {
        (runs[i] ??= []).push(...own);
        (ratios[i] ??= []).push(r.ratios[i]!);
        (each[i] ??= []).push(...r.roundRatios[i]!);
      });
    } finally {
      await e.stop();
    }
  }
  return {
    rows: names.map((name, i) => combine(name, runs[i]!)),
    ratios: ratios.map((r) => r.join(' | ')),
    medians: each.map((r) => median(r)),
  };
}
