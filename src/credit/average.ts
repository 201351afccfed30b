import type { AverageParams } from "./constants";

/** BOINC's AVERAGE: a running mean that turns into an exponential average (lib/average.h). */
export interface Average {
  readonly n: number;
  readonly avg: number;
}

/** BOINC's AVERAGE_VAR: AVERAGE plus a variance (Welford's q while in the running-mean phase). */
export interface AverageVar extends Average {
  readonly var: number;
  readonly q: number;
}

export const EMPTY_AVERAGE: Average = { n: 0, avg: 0 };
export const EMPTY_AVERAGE_VAR: AverageVar = { n: 0, avg: 0, var: 0, q: 0 };

/** The sample as AVERAGE takes it: cut to avg * limit once there is a non-zero average. */
export function truncatedSample(state: Average, sample: number, limit: number): number {
  if (state.n !== 0 && state.avg !== 0 && sample > state.avg * limit) return state.avg * limit;
  return sample;
}

/** AVERAGE.update. A negative sample changes nothing; zero is a sample. */
export function updateAverage(state: Average, sample: number, p: AverageParams): Average {
  if (sample < 0) return state;
  const x = truncatedSample(state, sample, p.limit);
  const n = state.n + 1;
  const delta = x - state.avg;
  const avg = n < p.thresh ? state.avg + delta / n : state.avg + p.weight * delta;
  return { n, avg };
}

/** AVERAGE_VAR.update: population variance while n < thresh, then an exponential one. */
export function updateAverageVar(state: AverageVar, sample: number, p: AverageParams): AverageVar {
  if (sample < 0) return state;
  const x = truncatedSample(state, sample, p.limit);
  const n = state.n + 1;
  const delta = x - state.avg;
  if (n < p.thresh) {
    const avg = state.avg + delta / n;
    const q = state.q + delta * (x - avg);
    return { n, avg, q, var: q / n };
  }
  return {
    n,
    avg: state.avg + p.weight * delta,
    q: state.q,
    var: state.var + p.weight * (delta * delta - state.var),
  };
}
