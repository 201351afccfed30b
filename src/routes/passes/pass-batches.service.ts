/**
 * Several passes in one request, applied in order, each with its own `now` and exactly as a
 * pass posted alone. ONE snapshot read serves them all: each pass runs on the snapshot as the
 * passes before it leave it (the engine's TypeScript twins of the SQL updates, as for two
 * results of one host inside a pass), and the writes of all of them go to D1 as ONE atomic
 * batch (db/pass-batch-writes.ts: each pass's relative updates with its own `now`,
 * in pass order). A pass refused by what is stored ends the batch there: the passes before it
 * are written, it and the rest are not.
 */
import { runBatch } from "../../db/batch";
import type { Db } from "../../db/client";
import { loadPassState, type PassKeys } from "../../db/pass-state";
import { passBatchWrites, type TimedEffects } from "../../db/pass-batch-writes";
import { retryOnConflict } from "../../http/conflict-retry";
import { ApiError } from "../../http/errors";
import { resolveNow } from "../common";
import type { PassBatchRequest } from "./pass-batches.schemas";
import type { PassResponse } from "./passes.schemas";
import { checkTimesAgainstNow, decidePass, preparePass, type PreparedPass } from "./passes.service";

/** An error of pass `index`, its paths under `passes[index]`, saying what was applied. */
function ofPass(e: ApiError, index: number, applied: number): ApiError {
  const prefix = `passes[${index}]`;
  const issues = (e.issues ?? [{ path: "", message: e.message }]).map((i) => ({
    path: i.path === "" || i.path === "(body)" ? prefix : `${prefix}.${i.path}`,
    message: i.message,
  }));
  const state = applied === 0 ? "no pass was applied" : `passes 0 to ${applied - 1} were applied (post the batch again: they replay)`;
  return new ApiError(e.status, e.code, `pass ${index}: ${e.message}; ${state}, pass ${index} and the rest were not`, issues, e.headers);
}

/** Every pass's `now` and result times, checked before anything is written. */
function checkedNows(body: PassBatchRequest): number[] {
  return body.passes.map((pass, k) => {
    try {
      const now = resolveNow(pass.now);
      checkTimesAgainstNow(pass, now);
      return now;
    } catch (e) {
      throw e instanceof ApiError ? ofPass(e, k, 0) : e;
    }
  });
}

/** The rows every pass of the batch reads, in one set of keys. */
function unionKeys(passes: readonly PreparedPass[]): PassKeys {
  return {
    hostVersions: [...new Map(passes.flatMap((p) => p.keys.hostVersions.map((k) => [`${k[0]}/${k[1]}`, k] as const))).values()],
    workunitIds: [...new Set(passes.flatMap((p) => p.keys.workunitIds))],
    resultIds: [...new Set(passes.flatMap((p) => p.keys.resultIds))],
    holders: {
      hosts: [...new Set(passes.flatMap((p) => p.keys.holders.hosts))],
      users: [...new Set(passes.flatMap((p) => p.keys.holders.users))],
      teams: [...new Set(passes.flatMap((p) => p.keys.holders.teams))],
    },
  };
}

export async function ingestPassBatch(db: Db, projectId: number, body: PassBatchRequest): Promise<{ passes: PassResponse[] }> {
  const nows = checkedNows(body);
  const prepared = await Promise.all(body.passes.map((pass, k) => preparePass(nows[k]!, pass)));
  const keys = unionKeys(prepared);
  const { passes, refusal } = await retryOnConflict(async () => {
    let snapshot = await loadPassState(db, projectId, keys);
    const { existingHolders: existing, historyTarget } = snapshot;
    const answers: PassResponse[] = [];
    const decided: TimedEffects[] = [];
    let refused: ApiError | null = null;
    for (const [k, pass] of prepared.entries()) {
      try {
        const { answer, effects, after, at } = decidePass(pass, snapshot);
        answers.push(answer);
        decided.push({ now: at, effects });
        snapshot = after;
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        refused = ofPass(e, k, k);
        break;
      }
    }
    // The passes before a refused one are written, as if posted one by one; if this batch loses
    // a race with a concurrent pass, all of it rolls back and runs again from a fresh snapshot.
    await runBatch(db, passBatchWrites(projectId, decided, existing, historyTarget));
    return { passes: answers, refusal: refused };
  }, "results or workunits of this batch");
  if (refusal) throw refusal;
  return { passes };
}
