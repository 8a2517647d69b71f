/**
 * Watches this process's event loop while something runs: a timer every few milliseconds notes how long each
 * gap between two ticks took and how much CPU the process used in it. A gap where the process worked all the
 * time is a turn that held the loop (what the gateway must bound); a long gap with little CPU is the machine
 * giving the process no core (a shared machine under load), which no code of ours can shorten.
 */
export interface LoopWatch {
  /** stops watching; the most CPU one gap between ticks took, in ms */
  stop(): { longestTurnCpuMs: number; longestGapMs: number };
}

export function watchLoop(everyMs = 5): LoopWatch {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let longestTurnCpuMs = 0;
  let longestGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    longestTurnCpuMs = Math.max(longestTurnCpuMs, (cpu.user + cpu.system) / 1000);
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
    lastCpu = process.cpuUsage();
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return { longestTurnCpuMs, longestGapMs };
    },
  };
}

/** The value under which `share` of the samples fall (0.99: the 99th percentile). */
export function percentile(samples: readonly number[], share: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
}
