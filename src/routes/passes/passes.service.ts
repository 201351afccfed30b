/**
 * A validator pass end to end: load a snapshot (one read batch), run the pure engine, write
 * its effects (one atomic batch). If a concurrent pass decided one of our results or credited
 * one of our workunits first, our batch fails on a primary key and rolls back; we then run
 * again from a fresh snapshot, where those results are replayed (or conflict): the policy of
 * src/http/conflict-retry.ts.
 */
import { runPass, type PassEffects, type PassOutcome, type ResultInput, type WorkunitInput } from "../../credit/pass";
import type { Db } from "../../db/client";
import type { LoadedPassState } from "../../db/pass-state";
import { type PassKeys, loadPassState } from "../../db/pass-state";
import { passBatchWrites } from "../../db/pass-batch-writes";
import { runBatch } from "../../db/batch";
import { retryOnConflict } from "../../http/conflict-retry";
import { ApiError, type Issue } from "../../http/errors";
import { fingerprint64 } from "../../http/fingerprint";
import { MAX_CLOCK_SKEW_SECONDS, grantTime } from "../common";
import type { PassRequest, PassResponse } from "./passes.schemas";

export type WorkunitBody = PassRequest["workunits"][number];
type ResultBody = WorkunitBody["results"][number];

/** A posted field's name in the engine (ResultInput): host_id → hostId. */
type EngineName<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<EngineName<Tail>>}` : S;

/**
 * A posted result as the engine takes it, every field of ResultSchema under its engine name:
 * the one place the two names meet (a field ResultInput lacks fails `everyFieldReachesTheEngine`).
 */
function engineResult(r: ResultBody) {
  return {
    id: r.id,
    hostId: r.host_id,
    userId: r.user_id,
    teamId: r.team_id,
    appVersionId: r.app_version_id,
    elapsedTime: r.elapsed_time,
    cpuTime: r.cpu_time,
    flopsEstimate: r.flops_estimate,
    // BOINC stores these as integers (docs/spec/credit.md#whole-second-times).
    sentTime: Math.trunc(r.sent_time),
    receivedTime: Math.trunc(r.received_time),
    validateState: r.validate_state,
    runtimeOutlier: r.runtime_outlier ?? false,
    ...(r.claimed_credit === undefined ? {} : { claimedCredit: r.claimed_credit }),
    ...(r.devices === undefined ? {} : { devices: r.devices }),
  } satisfies Omit<ResultInput, "fingerprint">;
}
type Unmapped = Exclude<EngineName<keyof ResultBody>, keyof ReturnType<typeof engineResult>>;
export const everyFieldReachesTheEngine: [Unmapped] extends [never] ? true : Unmapped = true;

/**
 * What a result's fingerprint reads, in this order (another order would change every stored
 * fingerprint). Left out: `id` (it keys the result) and `devices` (it changes no credit, and
 * adding it would change every fingerprint already stored).
 */
const FINGERPRINTED = [
  "hostId",
  "userId",
  "teamId",
  "appVersionId",
  "elapsedTime",
  "cpuTime",
  "flopsEstimate",
  "sentTime",
  "receivedTime",
  "validateState",
  "runtimeOutlier",
  "claimedCredit",
] as const satisfies readonly (keyof ResultInput)[];
type Unread = Exclude<keyof ResultInput, (typeof FINGERPRINTED)[number] | "id" | "devices" | "fingerprint">;
export const everyFieldFingerprinted: [Unread] extends [never] ? true : Unread = true;

/** Identifies a result's posted content (times as stored: whole seconds; no claimed credit: null). */
function fingerprint(wu: WorkunitBody, r: ResultBody): Promise<string> {
  const e: Omit<ResultInput, "fingerprint"> = engineResult(r);
  return fingerprint64([wu.id, wu.app, ...FINGERPRINTED.map((field) => e[field] ?? null)]);
}

/** The posted workunits as the engine takes them; `fingerprints[i][j]` is result j of workunit i's. */
export function engineWorkunits(workunits: readonly WorkunitBody[], fingerprints: readonly (readonly string[])[]): WorkunitInput[] {
  return workunits.map((w, i) => ({
    id: w.id,
    app: w.app,
    rscFpopsEst: w.rsc_fpops_est,
    rscFpopsBound: w.rsc_fpops_bound,
    targetNresults: w.target_nresults,
    ...(w.canonical_credit === undefined ? {} : { canonicalCredit: w.canonical_credit }),
    results: w.results.map((r, j): ResultInput => ({ ...engineResult(r), fingerprint: fingerprints[i]![j]! })),
  }));
}

/** Results received after the pass's `now` (beyond clock skew) cannot have been validated then. */
export function checkTimesAgainstNow(body: PassRequest, now: number): void {
  const issues: Issue[] = [];
  body.workunits.forEach((w, i) =>
    w.results.forEach((r, j) => {
      if (Math.trunc(r.received_time) > now + MAX_CLOCK_SKEW_SECONDS) {
        issues.push({ path: `workunits[${i}].results[${j}].received_time`, message: `received after now (${now})` });
      }
    }),
  );
  if (issues.length > 0) throw new ApiError(422, "received_after_now", "results were received after the pass's now", issues);
}

/**
 * A result sent before the retention horizon may have been decided and purged: it cannot be
 * told from a new one, so it is refused rather than risk crediting it twice (docs/storage.md).
 */
function checkRetention(body: PassRequest, snapshot: LoadedPassState): void {
  const { purgedBefore, days } = snapshot.retention;
  const issues: Issue[] = [];
  body.workunits.forEach((w, i) =>
    w.results.forEach((r, j) => {
      if (Math.trunc(r.sent_time) < purgedBefore) {
        issues.push({ path: `workunits[${i}].results[${j}].sent_time`, message: `sent before the retention horizon (${purgedBefore})` });
      }
    }),
  );
  if (issues.length > 0) {
    throw new ApiError(
      410,
      "outside_retention_window",
      `results sent before ${purgedBefore} are past the project's ${days}-day idempotency window; their records may be purged, so they cannot be credited; nothing was written`,
      issues,
    );
  }
}

/**
 * A new result for a workunit that was credited and then purged by retention is inconsistent
 * (BOINC creates no result for a workunit once it has a canonical result, and a result of it
 * sent before the horizon is refused above): it can no longer get the workunit's credit and is
 * never credited as a fresh workunit. Re-posts of its stored results still replay.
 */
function checkPurgedWorkunits(body: PassRequest, snapshot: LoadedPassState): void {
  const issues: Issue[] = [];
  const purged = new Set<number>();
  body.workunits.forEach((w, i) => {
    if (!snapshot.purgedWorkunits.has(w.id) || snapshot.creditedWorkunits.has(w.id)) return;
    w.results.forEach((r, j) => {
      if (snapshot.finalResults.has(r.id)) return;
      purged.add(w.id);
      issues.push({
        path: `workunits[${i}].results[${j}]`,
        message: `result ${r.id} is new, and workunit ${w.id} was credited and purged by retention`,
      });
    });
  });
  if (issues.length > 0) {
    const named = purged.size === 1 ? `workunit ${[...purged][0]} was` : `workunits ${[...purged].join(", ")} were`;
    throw new ApiError(
      410,
      "workunit_purged",
      `${named} credited and then purged with the project's ${snapshot.retention.days}-day window: a new result can't get the workunit's credit and is never credited as a new workunit; nothing was written`,
      issues,
    );
  }
}

/** Every app and app version the pass names must be registered, and belong together. */
function checkReferences(body: PassRequest, snapshot: LoadedPassState): void {
  const missing: Issue[] = [];
  const mismatched: Issue[] = [];
  const moved: Issue[] = [];
  body.workunits.forEach((w, i) => {
    const app = snapshot.apps.get(w.app);
    if (!app) {
      missing.push({ path: `workunits[${i}].app`, message: `unknown app '${w.app}'` });
      return;
    }
    const creditedApp = snapshot.workunitApps.get(w.id);
    if (creditedApp !== undefined && creditedApp !== app.id) {
      moved.push({ path: `workunits[${i}].app`, message: `workunit ${w.id} was credited under another app than '${w.app}'` });
    }
    w.results.forEach((r, j) => {
      if (r.app_version_id < 0) return;
      const version = snapshot.versions.get(r.app_version_id);
      const path = `workunits[${i}].results[${j}].app_version_id`;
      if (!version) missing.push({ path, message: `unknown app version ${r.app_version_id}` });
      else if (version.appId !== app.id) {
        mismatched.push({ path, message: `app version ${r.app_version_id} belongs to another app than '${w.app}'` });
      }
    });
  });
  if (missing.length > 0) {
    throw new ApiError(404, "not_found", missing.map((m) => m.message).join("; "), missing);
  }
  if (mismatched.length > 0) throw new ApiError(422, "app_mismatch", mismatched[0]!.message, mismatched);
  if (moved.length > 0) throw new ApiError(409, "conflict", moved[0]!.message, moved);
}

function response(now: number, outcome: PassOutcome): PassResponse {
  return {
    now,
    workunits: outcome.workunits.map((w) => ({
      id: w.id,
      credit: w.credit,
      replayed: w.replayed,
      path: w.path,
      results: w.results.map((r) => ({
        id: r.id,
        validate_state: r.validateState,
        granted_credit: r.grantedCredit,
        claimed_credit: r.claimedCredit,
        pfc_mode: r.pfcMode,
        replayed: r.replayed,
        ...(r.explanation
          ? {
              explain: {
                raw_pfc: r.explanation.rawPfc,
                pfc_scale: r.explanation.pfcScale,
                host_scale: r.explanation.hostScale,
                runtime_outlier: r.explanation.runtimeOutlier,
                ...(r.fairExplanation
                  ? {
                      fair: {
                        rule: r.fairExplanation.rule,
                        claimed_credit: r.fairExplanation.claimedCredit,
                        w_v: r.fairExplanation.paidShare,
                        feeds_quantiles: r.fairExplanation.feedsQuantiles,
                        held_out_by_gate: r.fairExplanation.heldOutByGate,
                        founder: r.fairExplanation.founder,
                        version_sealed: r.fairExplanation.versionSealed,
                        held_out_by_seal: r.fairExplanation.heldOutBySeal,
                        app_level: r.fairExplanation.appLevel,
                        app_anchor: r.fairExplanation.appAnchor,
                      },
                    }
                  : {}),
                ...(r.policyCredits ? { credit_by_policy: r.policyCredits } : {}),
              },
            }
          : {}),
      })),
    })),
  };
}

/** The hosts, users (not 0) and teams (not 0) the pass's results name. */
function holderIds(body: PassRequest): PassKeys["holders"] {
  const results = body.workunits.flatMap((w) => w.results);
  const ids = (pick: (r: ResultBody) => number) => [...new Set(results.map(pick))].filter((id) => id !== 0);
  return { hosts: ids((r) => r.host_id), users: ids((r) => r.user_id), teams: ids((r) => r.team_id) };
}

/** A pass made ready for the engine: its inputs and the rows its snapshot must hold. */
export interface PreparedPass {
  readonly now: number;
  readonly body: PassRequest;
  readonly input: WorkunitInput[];
  readonly keys: PassKeys;
}

export async function preparePass(now: number, body: PassRequest): Promise<PreparedPass> {
  const fingerprints = await Promise.all(body.workunits.map((w) => Promise.all(w.results.map((r) => fingerprint(w, r)))));
  return {
    now,
    body,
    input: engineWorkunits(body.workunits, fingerprints),
    keys: {
      hostVersions: [
        ...new Map(
          body.workunits.flatMap((w) => w.results.map((r) => [`${r.host_id}/${r.app_version_id}`, [r.host_id, r.app_version_id] as const])),
        ).values(),
      ],
      workunitIds: [...new Set(body.workunits.map((w) => w.id))],
      resultIds: body.workunits.flatMap((w) => w.results.map((r) => r.id)),
      holders: holderIds(body),
    },
  };
}

/** What one pass decided against a snapshot: its answer, its effects, and the snapshot as its writes leave it. */
export interface DecidedPass {
  /** The time it is granted at: its `now`, or the project's clock if that is later (grantTime). */
  readonly at: number;
  readonly answer: PassResponse;
  readonly effects: PassEffects;
  readonly after: LoadedPassState;
}

/** One pass against a snapshot: its checks and the engine (nothing written). Throws the pass's refusal (404, 409, 410, 422). */
export function decidePass(pass: PreparedPass, snapshot: LoadedPassState): DecidedPass {
  checkReferences(pass.body, snapshot);
  checkRetention(pass.body, snapshot);
  checkPurgedWorkunits(pass.body, snapshot);
  const outcome = runPass(snapshot, pass.input);
  if (outcome.conflicts.length > 0) {
    throw new ApiError(409, "conflict", "results already decided with other content; nothing was written", outcome.conflicts);
  }
  const workunitApps = new Map(snapshot.workunitApps);
  for (const w of outcome.effects.workunits) workunitApps.set(w.id, w.appId);
  const at = grantTime(pass.now, snapshot.clock);
  // A grant moves the project's clock to its time (the next pass of a batch is granted no earlier).
  const clock =
    outcome.effects.grants.some((g) => g.credit > 0) || (snapshot.clock > 0 && outcome.effects.grants.length > 0) ? at : snapshot.clock;
  return {
    at,
    answer: response(at, outcome),
    effects: outcome.effects,
    // existingHolders stays as read: the batch writer follows which holders its passes create.
    after: {
      ...outcome.after,
      workunitApps,
      retention: snapshot.retention,
      existingHolders: snapshot.existingHolders,
      historyTarget: snapshot.historyTarget,
      clock,
      purgedWorkunits: snapshot.purgedWorkunits,
    },
  };
}

export async function ingestPass(db: Db, projectId: number, now: number, body: PassRequest): Promise<PassResponse> {
  const pass = await preparePass(now, body);
  return retryOnConflict(async () => {
    const snapshot = await loadPassState(db, projectId, pass.keys);
    const { answer, effects, at } = decidePass(pass, snapshot);
    // A pass alone is a batch of one, through the one writer.
    await runBatch(db, passBatchWrites(projectId, [{ now: at, effects }], snapshot.existingHolders, snapshot.historyTarget));
    return answer;
  }, "results or workunits of this pass");
}
