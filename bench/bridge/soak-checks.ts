/**
 * The soak's end checks (docs: BENCHMARKS.md, "The bridge's soak"): from what the daemons
 * validated and purged (soak-records.ts) and the database at the end (soak-end-state.ts).
 * Each check passes or fails with what it found; the soak exits non-zero when one fails.
 */
import { TAYLOR_RATE, decayedRecentAverage, updateRecentAverage } from "../../src/credit/recent-average";
import type { EndState } from "./soak-end-state";
import type { ProxyCounts } from "./soak-fault-proxy";
import { ownerOf, teamOf } from "./soak-project";
import type { Records } from "./soak-records";

export interface Check {
  name: string;
  ok: boolean;
  lines: string[];
}

/** Rows of results purged longer ago than this are expected gone from cobblestone_writeback (a prune between polls). */
export const PRUNE_GRACE_S = 60;
const SHOWN = 5;
/**
 * Posts of a validated result, on average: BOINC's daemons move a result's mod_time after its
 * validation, and --follow posts again only what changed (bridge/running/posted-results.ts). Over 1 are
 * a restarted process's re-posts, and requests posted again after a fault.
 */
export const MAX_POSTS_PER_RESULT = 1.1;

const same = (a: number, b: number, rel = 1e-12) => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b), 1e-300);
const ids = (xs: number[]) => xs.slice(0, SHOWN).join(", ") + (xs.length > SHOWN ? ` … (${xs.length})` : ` (${xs.length})`);

function problems(found: Map<string, number[]>): string[] {
  return [...found].filter(([, xs]) => xs.length > 0).map(([what, xs]) => `${what}: results ${ids(xs)}`);
}

function creditedOnce(records: Records, end: EndState): Check {
  const found = new Map<string, number[]>([
    ["not written back (still present)", []],
    ["purged before the bridge wrote it", []],
    ["granted_credit is not the bridge's credit", []],
    ["credit 0", []],
    ["gone without db_purge's record", []],
  ]);
  const valid = [...records.validated.values()].filter((v) => v.valid);
  let purged = 0;
  for (const v of valid) {
    const r = end.results.get(v.id);
    const w = end.written.get(v.id);
    if (!r) found.get("gone without db_purge's record")!.push(v.id);
    else if (!w) found.get(r.purged ? "purged before the bridge wrote it" : "not written back (still present)")!.push(v.id);
    else if (!(w.credit > 0)) found.get("credit 0")!.push(v.id);
    else if (r.grantedCredit !== w.credit) found.get("granted_credit is not the bridge's credit")!.push(v.id);
    if (r?.purged) purged++;
  }
  const bad = problems(found);
  return {
    name: "every valid result credited once, with the bridge's credit",
    ok: bad.length === 0,
    lines: [`${valid.length} valid results validated (${purged} of them purged before the end, checked from db_purge's records)`, ...bad],
  };
}

function invalidUncredited(records: Records, end: EndState): Check {
  const found = new Map<string, number[]>([
    ["granted credit", []],
    ["written by the bridge", []],
  ]);
  const invalid = [...records.validated.values()].filter((v) => !v.valid);
  for (const v of invalid) {
    if ((end.results.get(v.id)?.grantedCredit ?? 0) !== 0) found.get("granted credit")!.push(v.id);
    if (end.written.has(v.id)) found.get("written by the bridge")!.push(v.id);
  }
  const stray = [...end.written.keys()].filter((id) => !records.validated.has(id));
  if (stray.length > 0) found.set("written by the bridge, never validated by the daemons", stray);
  const bad = problems(found);
  return {
    name: "no credit for invalid results, no write the validator did not ask for",
    ok: bad.length === 0,
    lines: [`${invalid.length} invalid results`, ...bad],
  };
}

/** The holders of each written result, and the rows written to each holder, in the bridge's order. */
function grantsByHolder(records: Records, end: EndState) {
  const by = { host: new Map<number, number[]>(), user: new Map<number, number[]>(), team: new Map<number, number[]>() };
  const add = (m: Map<number, number[]>, id: number, result: number) => (m.get(id) ?? m.set(id, []).get(id)!).push(result);
  for (const id of end.written.keys()) {
    const host = end.results.get(id)?.host ?? records.validated.get(id)?.host ?? 0;
    if (!host) continue;
    add(by.host, host, id);
    add(by.user, ownerOf(host), id);
    const team = teamOf(ownerOf(host));
    if (team) add(by.team, team, id);
  }
  return by;
}

function holderTotals(records: Records, end: EndState): Check {
  const by = grantsByHolder(records, end);
  const bad: string[] = [];
  let worst = 0;
  for (const kind of ["host", "user", "team"] as const) {
    for (const [id, row] of end.holders[kind]) {
      const before = end.before[kind].get(id)?.total ?? 0;
      const want = (by[kind].get(id) ?? []).reduce((s, r) => s + end.written.get(r)!.credit, before);
      const rel = Math.abs(row.total - want) / Math.max(want, 1e-9);
      worst = Math.max(worst, rel);
      if (!same(row.total, want, 1e-9))
        bad.push(`${kind} ${id}: total_credit ${row.total}, ${before} before the soak + the credits written to its results = ${want}`);
    }
  }
  return {
    name: "host/user/team total_credit = their credit before + the credits written to their results (purged ones included)",
    ok: bad.length === 0,
    lines: [`largest relative difference ${worst.toExponential(1)}`, ...bad.slice(0, SHOWN * 2)],
  };
}

function canonicalCredit(records: Records, end: EndState): Check {
  const credits = new Map<number, number[]>();
  for (const [id, w] of end.written) if (!end.results.get(id)?.purged) (credits.get(w.wu) ?? credits.set(w.wu, []).get(w.wu)!).push(id);
  const lateByWu = new Map<number, Records["late"]>();
  for (const l of records.late) (lateByWu.get(l.wu) ?? lateByWu.set(l.wu, []).get(l.wu)!).push(l);
  const mixed: number[] = [];
  const staleLate: number[] = [];
  const other: string[] = [];
  let checked = 0;
  for (const [wu, results] of credits) {
    const canonical = end.workunits.get(wu);
    if (canonical === undefined) continue;
    checked++;
    const values = results.map((r) => end.written.get(r)!.credit);
    if (values.some((v) => !same(v, values[0]!))) mixed.push(wu);
    if (same(canonical, values[0]!)) continue;
    const late = lateByWu.get(wu) ?? [];
    if (late.some((l) => same(l.canonicalRead, canonical))) staleLate.push(wu);
    else other.push(`workunit ${wu}: canonical_credit ${canonical}, credit ${values[0]}`);
  }
  const lines = [`${checked} workunits still present with written results`];
  if (mixed.length > 0) lines.push(`results of one workunit written with different credits: workunits ${ids(mixed)}`);
  if (staleLate.length > 0) {
    const invalidLate = staleLate.filter((wu) =>
      (lateByWu.get(wu) ?? []).some((l) => l.results.some((r) => records.validated.get(r)?.valid === false)),
    );
    lines.push(
      `overwritten by the validator's late-result pass with the canonical_credit it had read before the bridge's write: workunits ${ids(staleLate)}; ` +
        `${invalidLate.length} of them had an invalid late result (the bridge never writes that workunit again; nothing repairs it yet)`,
    );
  }
  lines.push(...other.slice(0, SHOWN));
  return {
    name: "workunit.canonical_credit = the credit (workunits still present)",
    ok: mixed.length + staleLate.length + other.length === 0,
    lines,
  };
}

/**
 * Each holder's recent average against a replay of the grants written to it (the service's
 * update, from the row as it was before the soak, in the bridge's order: grant time, the second
 * validated, workunit, result), decayed to the row's time at the end. update_stats' decays
 * between grants change it only by rounding and the split of a gap (about 1e-5 relative), but
 * its unlocked read-then-write overwrites a grant the bridge commits in between (BOINC's race,
 * not the bridge's): what each such write took away is recorded (soak-update-stats.ts) and
 * added back here, decayed to the row's time. Then a grant lost or written twice by the bridge
 * still shows as that grant's share, so a difference of half the smallest grant's share fails.
 */
function recentAverages(records: Records, end: EndState): Check {
  const by = grantsByHolder(records, end);
  const bad: string[] = [];
  let worst = 0;
  let overwritten = 0;
  let worstLoss = 0;
  for (const kind of ["host", "user", "team"] as const) {
    for (const [id, row] of end.holders[kind]) {
      const second = (r: number) => Math.floor((records.validated.get(r)?.at ?? 0) / 1000);
      const grants = (by[kind].get(id) ?? []).sort((a, b) => {
        const [x, y] = [end.written.get(a)!, end.written.get(b)!];
        return x.grantTime - y.grantTime || second(a) - second(b) || x.wu - y.wu || a - b;
      });
      const before = end.before[kind].get(id);
      if (grants.length === 0 || !before) continue;
      let ra = { expavgCredit: before.expavg, expavgTime: before.expavgTime };
      let smallest = Infinity;
      for (const r of grants) {
        const w = end.written.get(r)!;
        ra = updateRecentAverage(ra, w.grantTime, end.results.get(r)?.sentTime ?? 0, w.credit);
        smallest = Math.min(smallest, w.credit);
      }
      const want = decayedRecentAverage(ra, row.expavgTime);
      const overwrites = records.statsOverwrites.filter((o) => o.table === kind && o.id === id);
      const lost = overwrites.reduce((s, o) => s + decayedRecentAverage({ expavgCredit: o.lost, expavgTime: o.at }, row.expavgTime), 0);
      overwritten += overwrites.length;
      worstLoss = Math.max(worstLoss, lost / want);
      const share = (smallest * TAYLOR_RATE) / want;
      const rel = Math.abs(row.expavg + lost - want) / want;
      worst = Math.max(worst, rel / share);
      if (rel > share / 2)
        bad.push(
          `${kind} ${id}: expavg_credit ${row.expavg} (+ ${lost} update_stats overwrote), replayed ${want} (${rel.toExponential(1)} relative; a grant is ${share.toExponential(1)})`,
        );
    }
  }
  return {
    name: "host/user/team recent average = a replay of their grants (update_stats' overwrites added back)",
    ok: bad.length === 0,
    lines: [
      `largest difference ${(worst * 100).toFixed(2)}% of the smallest grant's share`,
      `update_stats overwrote ${overwritten} rows that changed between its read and its write (a grant committed in between; it reads without a lock): ` +
        `up to ${(worstLoss * 100).toFixed(2)}% of a holder's recent average lost`,
      ...bad.slice(0, SHOWN * 2),
    ],
  };
}

function tablePruned(records: Records, end: EndState, endedAt: number): Check {
  const purgedIds = [...end.tableIds].filter((id) => end.results.get(id)?.purged);
  const old = purgedIds.filter((id) => (records.purged.get(id)?.at ?? endedAt) < endedAt - PRUNE_GRACE_S * 1000);
  return {
    name: `cobblestone_writeback keeps no row of a result purged over ${PRUNE_GRACE_S} s before the end`,
    ok: old.length === 0,
    lines: [
      `${end.tableIds.size} rows in the table at the end, ${end.written.size} rows written in all; ${purgedIds.length} rows of purged results left (${old.length} purged over ${PRUNE_GRACE_S} s before the end)`,
    ],
  };
}

function postsPerResult(records: Records, posts: Pick<ProxyCounts, "passResults" | "distinctPassResults">): Check {
  const validated = records.validated.size;
  const ratio = posts.passResults / Math.max(1, validated);
  return {
    name: `the bridge posted each validated result at most ${MAX_POSTS_PER_RESULT} times on average`,
    ok: ratio <= MAX_POSTS_PER_RESULT,
    lines: [
      `${posts.passResults} results in the pass batches the service got, for ${validated} validated results: ${ratio.toFixed(3)} posts each; ` +
        `${posts.distinctPassResults} distinct results, ${posts.passResults - posts.distinctPassResults} posts of a result posted before`,
    ],
  };
}

export function endChecks(
  records: Records,
  end: EndState,
  endedAt: number,
  posts: Pick<ProxyCounts, "passResults" | "distinctPassResults">,
): Check[] {
  return [
    creditedOnce(records, end),
    invalidUncredited(records, end),
    holderTotals(records, end),
    canonicalCredit(records, end),
    recentAverages(records, end),
    tablePruned(records, end, endedAt),
    postsPerResult(records, posts),
  ];
}
