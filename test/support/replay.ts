/** Replays a trace through the HTTP API: each op becomes the call the traces' README names. */
import { MAX_PASSES_PER_BATCH } from "../../src/routes/passes/pass-batches.schemas";
import { createProject, typedClient } from "./api";
import type { components } from "./api-types";
import type { PassBody } from "./api-helpers";
import { type TraceOp, parseTrace } from "./trace";

type Api = ReturnType<typeof typedClient>;

/** Calls around an op (by its 0-based index in the trace), after the passes before it were sent. */
export interface ReplayHooks {
  before?(index: number, op: TraceOp, api: Api, slug: string): Promise<void>;
  after?(index: number, op: TraceOp, api: Api, slug: string): Promise<void>;
}

/** Result ids for trace error ops, which carry none: far above any id the traces use. */
const ERROR_RESULT_IDS_FROM = 900_000_000;

/**
 * `retime` maps every time of the trace (a pass's now, results' sent and received times,
 * error and rescale times); it must keep their order. The identity replays it as recorded.
 */
/**
 * How passes are sent: `1`, each through POST /passes; `n` > 1, consecutive passes together
 * through POST /pass-batches (as the bridge sends them), up to n a request, sent before any
 * other op; `"both"`, the two endpoints in turn: a pass through POST /passes, then the passes
 * after it through POST /pass-batches (up to MAX_PASSES_PER_BATCH, until another op), then a
 * pass alone again, so one replay sends a trace through both.
 */
export type PassesPerRequest = number | "both";

export async function replay(
  text: string,
  retime: (t: number) => number = (t) => t,
  passesPerRequest: PassesPerRequest = 1,
  hooks: ReplayHooks = {},
) {
  const { slug, token } = await createProject("trace");
  const api = typedClient(slug, token);
  const granted = new Map<number, number>();
  const credit = new Map<number, number>();
  /** Each credited result's `explain`, as the pass answered. */
  const explained = new Map<number, NonNullable<components["schemas"]["ResultOutcome"]["explain"]>>();
  const appNumbers = new Map<string, number>();
  let errorIds = ERROR_RESULT_IDS_FROM;
  const record = (answer: components["schemas"]["PassResponse"]) => {
    for (const w of answer.workunits) {
      credit.set(w.id, w.credit);
      for (const r of w.results) {
        granted.set(r.id, r.granted_credit);
        if (r.explain) explained.set(r.id, r.explain);
      }
    }
  };
  let waiting: PassBody[] = [];
  const batchSize = passesPerRequest === "both" ? MAX_PASSES_PER_BATCH : passesPerRequest;
  /** "both": the next pass goes through POST /passes. */
  let alone = passesPerRequest === "both";
  const flush = async () => {
    if (waiting.length === 0) return;
    const res = await api.ok("POST", "/pass-batches", { passes: waiting });
    waiting = [];
    for (const answer of res.passes) record(answer);
    alone = passesPerRequest === "both";
  };
  for (const [index, op] of parseTrace(text).entries()) {
    if (op.op !== "pass" || hooks.before) await flush();
    await hooks.before?.(index, op, api, slug);
    switch (op.op) {
      case "app":
        await api.ok("PUT", `/apps/${op.name}`, {
          host_scale_check: op.host_scale_check,
          ...(op.target_nresults === undefined ? {} : { target_nresults: op.target_nresults }),
          ...(op.min_avg_pfc === undefined ? {} : { min_avg_pfc: op.min_avg_pfc }),
          ...(op.credit_policy === undefined ? {} : { credit_policy: op.credit_policy }),
        });
        if (!appNumbers.has(op.name)) appNumbers.set(op.name, appNumbers.size + 1);
        break;
      case "app_version":
        await api.ok("PUT", `/app-versions/${op.id}`, {
          app: op.app,
          platform: op.platform,
          plan_class: op.plan_class,
          version_num: op.version_num,
        });
        break;
      case "pass": {
        const workunits = op.workunits.map((w) => ({
          ...w,
          results: w.results.map((r) => ({ ...r, sent_time: retime(r.sent_time), received_time: retime(r.received_time) })),
        }));
        const body = { now: retime(op.now), workunits };
        if (waiting.length === batchSize) await flush();
        if (batchSize === 1 || alone) {
          record(await api.ok("POST", "/passes", body));
          alone = false;
        } else waiting.push(body);
        break;
      }
      case "rescale":
        await api.ok("POST", "/rescale", { now: retime(op.now) });
        break;
      case "error":
        await api.ok("POST", "/errors", {
          now: retime(op.now),
          results: [
            {
              id: ++errorIds,
              host_id: op.host_id,
              app_version_id: op.app_version_id,
              ...(op.app === undefined ? {} : { app: op.app }),
              outcome: op.kind === "timeout" ? "timeout" : "error",
              ...(op.delay_bound === undefined ? {} : { delay_bound: op.delay_bound }),
            },
          ],
        });
        break;
      case "send":
        // BOINC's scheduler sending a job: Cobblestone creates the host_app_version at validation.
        break;
    }
    if (hooks.after) {
      await flush();
      await hooks.after(index, op, api, slug);
    }
  }
  await flush();
  return { api, slug, token, granted, credit, explained, appNumbers };
}
