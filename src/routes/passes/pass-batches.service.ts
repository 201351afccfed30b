/**
 * Several passes in one request: each goes through the one-pass service (ingestPass) in
 * order, with its own `now`, so a pass in a batch is written exactly as a pass posted alone.
 */
import type { Db } from "../../db/client";
import { ApiError } from "../../http/errors";
import { resolveNow } from "../common";
import type { PassBatchRequest } from "./pass-batches.schemas";
import type { PassResponse } from "./passes.schemas";
import { checkTimesAgainstNow, ingestPass } from "./passes.service";

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

export async function ingestPassBatch(db: Db, projectId: number, body: PassBatchRequest): Promise<{ passes: PassResponse[] }> {
  const nows = checkedNows(body);
  const passes: PassResponse[] = [];
  for (const [k, pass] of body.passes.entries()) {
    try {
      passes.push(await ingestPass(db, projectId, nows[k]!, pass));
    } catch (e) {
      throw e instanceof ApiError ? ofPass(e, k, passes.length) : e;
    }
  }
  return { passes };
}
