/**
 * Parity with the fair policy's reference model: the fair traces but fair-d1-* (in
 * fair-d1-traces.test.ts), each through POST /passes and POST /pass-batches in turn
 * (parity-checks.ts describeFairReplays).
 */
import { FAIR_TRACE_ROWS } from "../support/trace-fixtures";
import { describeFairReplays } from "./parity-checks";

describeFairReplays(FAIR_TRACE_ROWS.filter(([name]) => !name.startsWith("fair-d1-")));
