/** The traces' line format and expected numbers (test/support/trace.ts), for the Node-side bridge tests. */
export type { TraceExpected, TraceOp } from "../support/trace";
export { foldAnonymousId, parseTrace, relativeError } from "../support/trace";
