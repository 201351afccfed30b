/**
 * Parity with the fair policy's reference model: the fair traces but fair-d1-* (in
 * fair-d1-traces.test.ts) a pass per request, and batched as well the shortest two and a farm
 * whose hosts churn records (version 3's founders and seal, docs/spec/fair-policy.md#founders).
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
  FAIR_TRACE_ROWS.filter(([name]) => ["fair-a-1", "fair-e-1", "fair-farm-02-f2-rand-linux-churn20-1"].includes(name)),
  MAX_PASSES_PER_BATCH,
);
