/** Replays a trace through the pure engine into an in-memory ledger (no D1, no HTTP). */
import { expect } from "vitest";
import { WorkunitSchema } from "../../src/routes/passes/passes.schemas";
import { engineWorkunits } from "../../src/routes/passes/passes.service";
import { MemoryLedger } from "./memory-ledger";
import { type TraceWorkunit, parseTrace } from "./trace";

function engineInput(workunits: TraceWorkunit[]) {
  const parsed = workunits.map((w) => WorkunitSchema.parse(w));
  return engineWorkunits(
    parsed,
    parsed.map((w) => w.results.map((r) => JSON.stringify([w.id, r]))),
  );
}

/** Replays a trace into a fresh in-memory ledger; returns it with every granted and workunit credit. */
export function replayEngine(text: string) {
  const ledger = new MemoryLedger();
  const granted = new Map<number, number>();
  const credit = new Map<number, number>();
  for (const op of parseTrace(text)) {
    if (op.op === "app") {
      ledger.putApp({
        name: op.name,
        hostScaleCheck: op.host_scale_check,
        ...(op.target_nresults === undefined ? {} : { targetNresults: op.target_nresults }),
        ...(op.min_avg_pfc === undefined ? {} : { minAvgPfc: op.min_avg_pfc }),
        ...(op.credit_policy === undefined ? {} : { creditPolicy: op.credit_policy }),
      });
    } else if (op.op === "app_version") {
      ledger.putVersion({ id: op.id, app: op.app, platform: op.platform, planClass: op.plan_class, versionNum: op.version_num });
    } else if (op.op === "rescale") {
      ledger.rescale();
    } else if (op.op === "error") {
      ledger.error(op.host_id, op.app_version_id, op.app, op.kind === "timeout" ? "timeout" : "error", op.delay_bound);
    } else if (op.op === "pass") {
      const outcome = ledger.pass(op.now, engineInput(op.workunits));
      expect(outcome.conflicts).toEqual([]);
      for (const w of outcome.workunits) {
        credit.set(w.id, w.credit);
        for (const r of w.results) granted.set(r.id, r.grantedCredit);
      }
    }
  }
  return { ledger, granted, credit };
}
