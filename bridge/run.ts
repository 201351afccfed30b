/**
 * One bridge run: registers apps and versions, then reads the decided results after the cursor
 * second by second and posts each second as BOINC's validator would have (rescale at a crossed
 * mark, the pass, the errors), advancing the cursor only after the service answered.
 */
import { CobblestoneApi } from "./api-client";
import { BoincDb } from "./boinc-db";
import { CreditComparison, type CompareSummary, summaryText } from "./compare";
import { BridgeError } from "./errors";
import { type SecondCalls, callsForSecond, rescaleMarkBefore } from "./events";
import { HolderRegistrar, type HolderIds, eachLimited, emptyHolderIds } from "./holders";
import { Progress } from "./progress";
import type { RetryOptions } from "./retrying-fetch";
import type { ResultRow } from "./rows";
import { type BridgeState, freshState, loadState, saveState } from "./state";

export interface BridgeOptions {
  db: string;
  url: string;
  project: string;
  token: string;
  stateFile: string;
  since: number | null;
  rescaleEvery: number;
  dryRun: boolean;
  compare: string | null;
  progress: boolean;
  retry?: RetryOptions;
  /** Stop after this many seconds of history (tests use it to interrupt a run). */
  maxSeconds?: number;
  log?: (line: string) => void;
}

/** BOINC's feeder recalculates scales every 10 minutes; the bridge rescales at the same marks. */
export const DEFAULT_RESCALE_EVERY = 600;

/** Options for a one-shot backfill with the CLI's defaults; `extra` overrides any of them. */
export function bridgeOptions(
  target: Pick<BridgeOptions, "db" | "url" | "project" | "token" | "stateFile">,
  extra: Partial<BridgeOptions> = {},
): BridgeOptions {
  return { since: null, rescaleEvery: DEFAULT_RESCALE_EVERY, dryRun: false, compare: null, progress: false, ...target, ...extra };
}

export interface BridgeReport {
  results: number;
  passes: number;
  errors: number;
  rescales: number;
  holders: number;
  skipped: number;
  seconds: number;
  elapsed_s: number;
  compare: CompareSummary | null;
}

/** Seconds are grouped into batches of about this many rows, whose hosts/users/teams register together. */
const BATCH_ROWS = 2000;
const SKIPS_LOGGED = 20;

interface Second {
  time: number;
  rows: ResultRow[];
}

async function* seconds(rows: AsyncIterable<ResultRow>): AsyncGenerator<Second> {
  let current: Second | null = null;
  for await (const row of rows) {
    if (current && row.mod_time !== current.time) {
      yield current;
      current = null;
    }
    (current ??= { time: row.mod_time, rows: [] }).rows.push(row);
  }
  if (current) yield current;
}

async function* batches(all: AsyncIterable<Second>): AsyncGenerator<Second[]> {
  let batch: Second[] = [];
  let rows = 0;
  for await (const s of all) {
    batch.push(s);
    rows += s.rows.length;
    if (rows >= BATCH_ROWS) {
      yield batch;
      batch = [];
      rows = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

function holdersOf(calls: SecondCalls[]): HolderIds {
  const ids = emptyHolderIds();
  for (const c of calls) {
    for (const p of c.passes) {
      for (const w of p.workunits) {
        for (const r of w.results) {
          ids.hosts.add(r.host_id);
          if (r.user_id) ids.users.add(r.user_id);
          if (r.team_id) ids.teams.add(r.team_id);
        }
      }
    }
    for (const e of c.errors) for (const r of e.results) ids.hosts.add(r.host_id);
  }
  return ids;
}

export async function runBridge(options: BridgeOptions): Promise<BridgeReport> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + "\n"));
  const started = Date.now();
  const db = await BoincDb.open(options.db);
  try {
    await db.checkSchema();
    const api = options.dryRun ? null : new CobblestoneApi(options.url, options.project, options.token, options.retry);
    const stored = await loadState(options.stateFile, options.url, options.project);
    const state: BridgeState = stored ?? freshState(options.url, options.project, options.since ?? 0);
    if (stored && options.since !== null && options.since > state.cursor.mod_time) state.cursor = { mod_time: options.since, id: 0 };

    const apps = await db.apps();
    const versions = await db.appVersions();
    if (api) {
      await eachLimited(apps, 8, async (a) => {
        await api.putApp(a.name, { host_scale_check: a.host_scale_check !== 0, ...(a.target_nresults > 0 ? { target_nresults: a.target_nresults } : {}) });
      });
      await eachLimited(versions, 8, async (v) => {
        await api.putAppVersion(v.id, { app: v.app, platform: v.platform, plan_class: v.plan_class ?? "", version_num: v.version_num });
      });
    }
    const knownVersions = new Set(versions.map((v) => v.id));

    // The current second may still get rows: read only whole seconds that are over.
    const until = Math.floor(Date.now() / 1000);
    const progress = new Progress(await db.countAfter(state.cursor, until), process.stderr, options.progress);
    const registrar = new HolderRegistrar(db, api);
    const comparison = options.compare ? new CreditComparison(options.compare) : null;
    const report: BridgeReport = { results: 0, passes: 0, errors: 0, rescales: 0, holders: 0, skipped: 0, seconds: 0, elapsed_s: 0, compare: null };
    const save = async () => {
      if (!options.dryRun) await saveState(options.stateFile, state);
    };

    let secondsLeft = options.maxSeconds ?? Infinity;
    outer: for await (const batch of batches(seconds(db.rowsAfter(state.cursor, until)))) {
      const calls = batch.map((s) => callsForSecond(s.time, s.rows, knownVersions));
      await registrar.register(holdersOf(calls));
      for (const [i, call] of calls.entries()) {
        if (secondsLeft-- <= 0) break outer;
        const rows = batch[i]!.rows;
        for (const s of call.skipped) {
          if (report.skipped++ < SKIPS_LOGGED) log(`result ${s.id} skipped: ${s.reason}`);
        }
        if (call.passes.length + call.errors.length > 0) {
          const mark = rescaleMarkBefore(state.last_event_time, call.time, options.rescaleEvery);
          if (mark !== null && mark > (state.last_rescale_mark ?? -Infinity)) {
            if (api) await api.rescale(mark);
            state.last_rescale_mark = mark;
            report.rescales++;
            await save();
          }
          for (const pass of call.passes) {
            const answer = api ? await api.postPass(pass) : null;
            report.passes++;
            if (answer && comparison) {
              for (const w of answer.workunits) {
                for (const r of w.results) {
                  const boinc = call.boincGranted.get(r.id);
                  if (boinc) comparison.add({ result_id: r.id, workunit_id: w.id, app: boinc.app, boinc: boinc.granted, cobblestone: r.granted_credit });
                }
              }
            }
          }
          for (const errors of call.errors) {
            if (api) await api.postErrors(errors);
            report.errors++;
          }
          state.last_event_time = call.time;
        }
        state.cursor = { mod_time: call.time, id: rows.at(-1)!.id };
        await save();
        report.results += rows.length;
        report.seconds++;
        progress.add(rows.length);
      }
    }
    progress.finish();
    if (report.skipped > SKIPS_LOGGED) log(`… ${report.skipped - SKIPS_LOGGED} more results skipped`);
    report.holders = registrar.count;
    if (comparison) {
      report.compare = await comparison.close();
      log(summaryText(report.compare));
    }
    report.elapsed_s = (Date.now() - started) / 1000;
    return report;
  } finally {
    await db.close();
  }
}

export { BridgeError };
