/**
 * The fair policy's state in its rows: host_app_versions and app_versions columns to the
 * pure states and back. Buffers are JSON arrays (JSON keeps a double exactly), null when empty.
 */
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { FAIR } from "../credit/parameters";
import type { FairHostChange } from "../credit/fair-pass";
import type { FairHostState, FairVersionState } from "../credit/fair-state";
import { type HostAppVersionKey, havKey } from "../credit/host-app-version-key";
import { appVersions, hostAppVersions } from "./schema";
import { chunks, name, ref, withJsonRows } from "./sql-helpers";
import { setClause } from "./stat-updates";

type HostRow = Pick<typeof hostAppVersions.$inferSelect, "fairN" | "fairQ" | "fairBuf" | "fairRun" | "fairErr" | "fairF" | "fairFounder">;
type VersionRow = Pick<
  typeof appVersions.$inferSelect,
  "fairN" | "fairLevel" | "fairBuf" | "fairTHi" | "fairTLo" | "fairZn" | "fairFv" | "fairScale" | "fairOwnScale" | "fairSealed"
>;

const parseBuf = (text: string | null): number[] => (text ? (JSON.parse(text) as number[]) : []);
const bufText = (buf: readonly number[]): string | null => (buf.length > 0 ? JSON.stringify(buf) : null);

export function fairHostState(r: HostRow): FairHostState {
  return { n: r.fairN, q: r.fairQ, buf: parseBuf(r.fairBuf), run: r.fairRun, err: r.fairErr, f: r.fairF, founder: r.fairFounder };
}

export function fairVersionState(r: VersionRow): FairVersionState {
  return {
    n: r.fairN,
    level: r.fairLevel,
    buf: parseBuf(r.fairBuf),
    tHi: r.fairTHi,
    tLo: r.fairTLo,
    zn: r.fairZn,
    fv: r.fairFv,
    scale: r.fairScale,
    ownScale: r.fairOwnScale,
    sealed: r.fairSealed,
  };
}

const h = hostAppVersions;
const av = appVersions;

/**
 * `fair_founder` of a host × version row inserted now: whether its version is not sealed at
 * this moment (docs/spec/fair-policy.md#founders). Inserts set it; no update writes it but a re-base.
 */
export function founderOnInsert(projectId: number, appVersionId: SQLWrapper): SQL<number> {
  return sql<number>`NOT coalesce((SELECT ${name(av.fairSealed)} FROM ${av} WHERE ${name(av.projectId)} = ${projectId} AND ${name(av.id)} = ${appVersionId}), 0)`;
}

/** A host's fair state as JSON-row fields, and the columns they are written to (founder is the insert's). */
export const FAIR_HOST_FIELDS = ["fairN", "fairQ", "fairBuf", "fairRun", "fairErr", "fairF"] as const;

export function fairHostFields(state: FairHostState): Record<(typeof FAIR_HOST_FIELDS)[number], unknown> {
  return { fairN: state.n, fairQ: state.q, fairBuf: bufText(state.buf), fairRun: state.run, fairErr: state.err, fairF: state.f };
}

/** `column = alias.field` for each fair column (the row's fields named as fairHostFields names them). */
export function fairHostAssignments(field: (name: string) => SQL): Record<string, SQL> {
  return Object.fromEntries(FAIR_HOST_FIELDS.map((f) => [h[f].name, field(f)]));
}

/**
 * The pass's final fair states, written as they are (the pass computed them from its
 * snapshot, result by result; a concurrent pass on the same rows overwrites, see docs).
 * Host rows a pass also changes BOINC's statistics of get their state in that same update
 * (pass-writes.ts); these are the others.
 */
export function fairHostStateWrites(projectId: number, hosts: ReadonlyMap<string, FairHostChange>): SQL[] {
  const f = (field: string) => ref("f", field);
  const rows = [...hosts.values()].map(({ key, state }) => ({ ...key, ...fairHostFields(state) }));
  return chunks(rows).map(
    (chunk) => sql`${withJsonRows("f", ["hostId", "appId", "appVersionId", ...FAIR_HOST_FIELDS], chunk)}
      UPDATE ${h} SET ${setClause(Object.entries(fairHostAssignments(f)))}
      FROM f WHERE ${name(h.projectId)} = ${projectId} AND ${name(h.hostId)} = ${f("hostId")}
        AND ${name(h.appId)} = ${f("appId")} AND ${name(h.appVersionId)} = ${f("appVersionId")}`,
  );
}

const FAIR_VERSION_FIELDS = ["n", "level", "buf", "tHi", "tLo", "zn", "fv"] as const;

function fairVersionFields(v: FairVersionState): Record<(typeof FAIR_VERSION_FIELDS)[number], unknown> {
  return { n: v.n, level: v.level, buf: bufText(v.buf), tHi: v.tHi, tLo: v.tLo, zn: v.zn, fv: v.fv };
}

function fairVersionSet(field: (name: string) => SQL): SQL {
  return sql`${name(av.fairN)} = ${field("n")}, ${name(av.fairLevel)} = ${field("level")}, ${name(av.fairBuf)} = ${field("buf")},
        ${name(av.fairTHi)} = ${field("tHi")}, ${name(av.fairTLo)} = ${field("tLo")}, ${name(av.fairZn)} = ${field("zn")}, ${name(av.fairFv)} = ${field("fv")}`;
}

/**
 * An app version's final fair state as assignments, to ride in the update that already writes
 * the version's row (pass-writes.ts): one row written for the version, not two. The values
 * go through JSON as in fairVersionStateWrites, so both store the same numbers.
 */
export function fairVersionAssignments(state: FairVersionState): SQL {
  const json = JSON.stringify(fairVersionFields(state));
  return fairVersionSet((field) => sql`json_extract(${json}, ${`$.${field}`})`);
}

/** The pass's final fair state of each app version it sampled and wrote no other statement for. */
export function fairVersionStateWrites(projectId: number, versions: ReadonlyMap<number, FairVersionState>): SQL[] {
  const f = (field: string) => ref("f", field);
  const rows = [...versions].map(([id, v]) => ({ versionId: id, ...fairVersionFields(v) }));
  return chunks(rows).map(
    (chunk) => sql`${withJsonRows("f", ["versionId", ...FAIR_VERSION_FIELDS], chunk)}
      UPDATE ${av} SET ${fairVersionSet(f)}
      FROM f WHERE ${name(av.projectId)} = ${projectId} AND ${name(av.id)} = ${f("versionId")}`,
  );
}

/**
 * docs/spec/fair-policy.md#r0 for client errors and timeouts, applied to the rows as they are now (the caller creates
 * the rows fairErrorEffect asks for; a row that still does not exist is skipped). An UPDATE changes a row once, so the k-th error of a row goes in round k.
 */
export function fairErrorWrites(projectId: number, keys: readonly HostAppVersionKey[]): SQL[] {
  const f = (field: string) => ref("f", field);
  const rounds: HostAppVersionKey[][] = [];
  const seen = new Map<string, number>();
  for (const k of keys) {
    const id = havKey(k);
    const round = seen.get(id) ?? 0;
    seen.set(id, round + 1);
    (rounds[round] ??= []).push({ hostId: k.hostId, appId: k.appId, appVersionId: k.appVersionId });
  }
  return rounds.flatMap((round) =>
    chunks(round).map(
      (rows) => sql`${withJsonRows("f", ["hostId", "appId", "appVersionId"], rows)}
        UPDATE ${h} SET ${name(h.fairErr)} = ${name(h.fairErr)} + ${FAIR.errorAlpha} * (1 - ${name(h.fairErr)})
        FROM f WHERE ${name(h.projectId)} = ${projectId} AND ${name(h.hostId)} = ${f("hostId")}
          AND ${name(h.appId)} = ${f("appId")} AND ${name(h.appVersionId)} = ${f("appVersionId")}`,
    ),
  );
}

/** The gate for a version's high-z share (docs/spec/fair-policy.md#r17), in SQL (quantileGate in src/credit/fair-state.ts). */
export function gateValue(versionShare: SQLWrapper): SQL<number> {
  return sql<number>`max(${FAIR.gateFactor} * ${versionShare}, ${versionShare} + ${FAIR.gateMargin})`;
}

/** True where a host's high-z share is above its version's gate: its z no longer feeds the quantiles. */
export function heldOutByGate(hostShare: SQLWrapper, versionShare: SQLWrapper): SQL<number> {
  return sql<number>`(${hostShare} > ${gateValue(versionShare)})`;
}
