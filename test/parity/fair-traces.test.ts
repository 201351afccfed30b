/**
 * Parity with the fair policy's reference model: the fair traces but fair-d1-* (in
 * fair-d1-traces.test.ts), a pass per request. The same traces batched are in
 * fair-batched-traces.test.ts, a file of its own so that another worker takes it.
 */
import { FAIR_TRACE_ROWS } from "../support/trace-fixtures";
import { describeFairReplays } from "./parity-checks";

describeFairReplays(
  FAIR_TRACE_ROWS.filter(([name]) => !name.startsWith("fair-d1-")),
  1,
);
