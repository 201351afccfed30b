/**
 * Parity with the fair policy's reference model on its two longest traces, fair-d1-1 and
 * fair-d1-err-1 (4,234 calls each: 2,920 passes, a rescale every two or three, so each pass
 * alone through POST /passes is followed by one or two through POST /pass-batches), in a file
 * of their own so that a worker takes them while the others take the rest.
 */
import { FAIR_TRACE_ROWS } from "../support/trace-fixtures";
import { describeFairReplays } from "./parity-checks";

describeFairReplays(FAIR_TRACE_ROWS.filter(([name]) => name.startsWith("fair-d1-")));
