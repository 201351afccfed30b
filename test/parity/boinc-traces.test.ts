/**
 * Parity: every BOINC trace replayed through the HTTP API (each op becomes the API call the
 * traces' README names), a pass a request and in batches, leaves exactly the numbers of its
 * .expected.json (parity-checks.ts).
 */
import { BOINC_TRACE_ROWS } from "../support/trace-fixtures";
import { describeBoincReplays } from "./parity-checks";

describeBoincReplays(BOINC_TRACE_ROWS);
