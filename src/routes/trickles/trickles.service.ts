/**
 * A trickle batch end to end: load (one read batch), pay each new message by the pure rules
 * of credit/trickle.ts, write (one atomic batch). A message id already paid is replayed with
 * its stored answer, or is a conflict if its content differs; a concurrent batch that paid one
 * of ours first makes our insert fail, and we run again from a fresh snapshot
 * (src/http/conflict-retry.ts). A message
 * at or below the retention horizon that is not stored may have been paid and purged: it is
 * refused (410), never paid again (docs/storage.md).
 */
import type { Attribution, Grant } from "../../credit/pass";
import { trickleCredit, trickleGrant } from "../../credit/trickle";
import { runBatch } from "../../db/batch";
import { retryOnConflict } from "../../http/conflict-retry";
import type { Db } from "../../db/client";
import { type PaidTrickle, type StoredTrickle, type TrickleSnapshot, loadTrickleSnapshot, trickleWrites } from "../../db/trickle-writes";
import { ApiError, type Issue } from "../../http/errors";
import { fingerprint64 } from "../../http/fingerprint";
import { grantTime } from "../common";
import type { TrickleMessage, TrickleOutcome, TrickleRequest, TrickleResponse } from "./trickles.schemas";

/** Identifies a message's content; `now` is not part of it, so a retried batch replays. */
function fingerprint(m: TrickleMessage): Promise<string> {
  return fingerprint64([m.app, m.host_id, m.result_id ?? null, m.runtime]);
}

type Payment = Pick<PaidTrickle, "credit" | "runtime" | "runtimeCut" | "flops" | "flopsSource">;

function outcome(m: TrickleMessage, paid: Payment, replayed: boolean): TrickleOutcome {
  return {
    id: m.id,
    granted_credit: paid.credit,
    replayed,
    explain: {
      reported_runtime: m.runtime,
      runtime: paid.runtime,
      runtime_cut: paid.runtimeCut,
      flops: paid.flops,
      flops_source: paid.flopsSource,
    },
  };
}

/** A stored message's answer: the reported runtime (the fingerprint matched, so it is the one paid) unless it was cut. */
function replay(m: TrickleMessage, stored: StoredTrickle): TrickleOutcome {
  const { credit, cutRuntime, flops, flopsSource } = stored;
  return outcome(m, { credit, runtime: cutRuntime ?? m.runtime, runtimeCut: cutRuntime !== null, flops, flopsSource }, true);
}

function fail(status: 404 | 409 | 410 | 422, code: string, issues: Issue[], message = issues[0]!.message): never {
  throw new ApiError(status, code, `${message}; nothing was written`, issues);
}

/** Pays the new messages of one batch, or throws (writing nothing) if any message cannot be paid. */
function payBatch(body: TrickleRequest, prints: readonly string[], snap: TrickleSnapshot, now: number) {
  const conflicts: Issue[] = [];
  const purged: Issue[] = [];
  const missing: Issue[] = [];
  const unpayable: Issue[] = [];
  const paid: PaidTrickle[] = [];
  const grants: Grant[] = [];
  const attributions: Attribution[] = [];
  const outcomes = body.messages.map((m, i): TrickleOutcome | null => {
    const path = `messages[${i}]`;
    const stored = snap.stored.get(m.id);
    if (stored) {
      if (stored.fingerprint === prints[i]) return replay(m, stored);
      conflicts.push({ path: `${path}.id`, message: `trickle ${m.id} was already paid with other content` });
      return null;
    }
    if (m.id <= snap.retention.purgedThrough) {
      purged.push({ path: `${path}.id`, message: `at or below the retention horizon (message ${snap.retention.purgedThrough})` });
      return null;
    }
    const app = snap.apps.get(m.app);
    const host = snap.hosts.get(m.host_id);
    if (!app) missing.push({ path: `${path}.app`, message: `unknown app '${m.app}'` });
    if (!host) missing.push({ path: `${path}.host_id`, message: `unknown host ${m.host_id} (register it with PUT …/hosts/{id})` });
    if (!app || !host) return null;
    if (app.trickleMaxRuntime === null) {
      unpayable.push({
        path: `${path}.app`,
        message: `app '${m.app}' has no trickle_max_runtime (BOINC's trickle handler needs --max_runtime)`,
      });
      return null;
    }
    const credit = trickleCredit({
      runtime: m.runtime,
      hostPFpops: host.pFpops,
      maxRuntime: app.trickleMaxRuntime,
      percentiles: snap.percentiles,
    });
    if (credit === "nonpositive_runtime") throw new Error("the schema admits only a positive runtime");
    if (credit === "no_percentiles") {
      unpayable.push({
        path: `${path}.host_id`,
        message: `host ${m.host_id} has no benchmark (p_fpops) and the project has no 50th percentile yet (the cron computes it over hosts with RAC > 10)`,
      });
      return null;
    }
    const who = { hostId: m.host_id, userId: host.userId, teamId: host.teamId, appId: app.id, resultId: m.result_id ?? null };
    const row: PaidTrickle = { id: m.id, appId: app.id, hostId: m.host_id, fingerprint: prints[i]!, ...credit };
    paid.push(row);
    grants.push(trickleGrant(who, now, credit.credit));
    attributions.push({ hostId: who.hostId, userId: who.userId, teamId: who.teamId });
    return outcome(m, row, false);
  });
  if (conflicts.length > 0) fail(409, "conflict", conflicts);
  if (purged.length > 0) {
    const { purgedThrough, days } = snap.retention;
    fail(
      410,
      "outside_retention_window",
      purged,
      `trickle messages up to id ${purgedThrough} are past the project's ${days}-day idempotency window; their records may be purged, so they cannot be paid`,
    );
  }
  if (missing.length > 0) fail(404, "not_found", missing, missing.map((x) => x.message).join("; "));
  if (unpayable.length > 0) fail(422, "cannot_pay", unpayable);
  return { outcomes: outcomes as TrickleOutcome[], paid, grants, attributions };
}

export async function ingestTrickles(db: Db, projectId: number, now: number, body: TrickleRequest): Promise<TrickleResponse> {
  const prints = await Promise.all(body.messages.map(fingerprint));
  const keys = { messageIds: body.messages.map((m) => m.id), hostIds: [...new Set(body.messages.map((m) => m.host_id))] };
  return retryOnConflict(async () => {
    const snap = await loadTrickleSnapshot(db, projectId, keys);
    const at = grantTime(now, snap.clock);
    const batch = payBatch(body, prints, snap, at);
    await runBatch(db, trickleWrites(projectId, at, batch.paid, batch.grants, batch.attributions));
    return { now: at, messages: batch.outcomes };
  }, "trickle messages of this batch");
}
