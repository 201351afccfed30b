/**
 * Parity with the fair policy's reference model: the fair traces but fair-d1-* (in
 * fair-d1-traces.test.ts) a pass per request, and the shortest two batched as well.
 */
import { MAX_PASSES_PER_BATCH } from "../../src/routes/passes/pass-batches.schemas";
import { FAIR_TRACE_ROWS } from "../support/trace-fixtures";
import { describeFairReplays } from "./parity-checks";

const isD1 = ([name]: (typeof FAIR_TRACE_ROWS)[number]) => name.startsWith("fair-d1-");

describeFairReplays(
  FAIR_TRACE_ROWS.filter((row) => !isD1(row)),
  1,
);
describeFairReplays(
  FAIR_TRACE_ROWS.filter(([name]) => name === "fair-a-1" || name === "fair-e-1"),
  MAX_PASSES_PER_BATCH,
);
