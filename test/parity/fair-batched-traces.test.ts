/**
 * Parity with the fair policy's reference model through POST /pass-batches: every fair trace
 * but fair-d1-*, consecutive passes together (one snapshot and one write batch for up to
 * MAX_PASSES_PER_BATCH of them), so version 3's founders and seal (docs/spec/fair-policy.md#founders) are
 * checked on rows a batch creates too. fair-d1-* rescale every two or three passes, which
 * leaves batches of two or three: their per-pass replay (fair-d1-traces.test.ts) covers them.
 */
import { MAX_PASSES_PER_BATCH } from "../../src/routes/passes/pass-batches.schemas";
import { FAIR_TRACE_ROWS } from "../support/trace-fixtures";
import { describeFairReplays } from "./parity-checks";

describeFairReplays(
  FAIR_TRACE_ROWS.filter(([name]) => !name.startsWith("fair-d1-")),
  MAX_PASSES_PER_BATCH,
);
