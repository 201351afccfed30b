/**
 * The common setup of the fair claim tests: a mature version with level L = 2 and scale
 * s = 0.5 given by a rescale at which the app's level was S = L × s = 1, a workunit of
 * est = 1e12, so the expected PFC E = est × S = 1e12 (version 3; est × L × s before); an
 * established host whose typical PFC/est is 2. A result of 1000 s at f FLOPS claims
 * raw = 1000 f, i.e. r = raw / est = f / 1e9.
 */
import { type FairClaimInput, fairClaim } from "../../src/credit/fair-claim";
import type { FairHostState, FairVersionState } from "../../src/credit/fair-state";

export const EST = 1e12;
export const E = 1e12;
// Its z band ln 3 − ln ⅓ = ln 9 is wider than ln 4: w_v = 1, the whole z is paid (as version 1).
export const VERSION: FairVersionState = {
  n: 100,
  level: 2,
  buf: [],
  tHi: Math.log(3),
  tLo: Math.log(1 / 3),
  zn: 300,
  fv: 0.02,
  scale: 0.5,
  ownScale: true,
  sealed: false,
};
export const APP_LEVEL = 1;
export const HOST: FairHostState = { n: 10, q: Math.log(2), buf: [], run: 0, err: 0, f: null, founder: true };

/** A result whose claim is r × est. */
export function claim(r: number, over: Partial<FairClaimInput> = {}) {
  return fairClaim({
    result: { elapsedTime: 1000, cpuTime: 1000, flopsEstimate: r * 1e9 },
    wu: { rscFpopsEst: EST, rscFpopsBound: 100 * EST },
    hostScaleCheck: false,
    consecutiveValid: 20,
    host: HOST,
    version: VERSION,
    defaultScale: 1,
    appLevel: APP_LEVEL,
    ...over,
  });
}
