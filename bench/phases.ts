/** The ingest phases both runs share: the same passes, ids and numbers. */
import { passes } from "./workload";

const SEED = 42;

export function phases(quick: boolean) {
  return [
    { size: 1, passes: 2000 },
    { size: 10, passes: 1000 },
    { size: 100, passes: 400 },
    { size: 1000, passes: 50 },
  ].map((p) => ({ ...p, passes: quick ? Math.max(2, p.passes / 10) : p.passes }));
}

/** Each phase with a generator of its pass bodies (workunit ids never repeat across phases). */
export function phaseBodies(quick: boolean, now: number) {
  let firstWu = 1;
  return phases(quick).map((p) => {
    const start = firstWu;
    firstWu += p.size * p.passes;
    return { ...p, bodies: () => passes(Array(p.passes).fill(p.size), { seed: SEED + p.size, firstWu: start, now }) };
  });
}
