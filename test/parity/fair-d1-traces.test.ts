/**
 * Parity with the fair policy's reference model on its two longest traces, fair-d1-1 and
 * fair-d1-err-1 (4,234 calls each, a pass per request: half of all parity replay time), in a
 * file of their own so that a worker takes them while the other takes the rest.
 */
import { FAIR_TRACE_ROWS } from "../support/trace-fixtures";
import { describeFairReplays } from "./parity-checks";

describeFairReplays(
  FAIR_TRACE_ROWS.filter(([name]) => name.startsWith("fair-d1-")),
  1,
);
