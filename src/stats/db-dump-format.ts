/**
 * Records of BOINC's db_dump default export (docs/spec/credit.md#stats-export; sched/db_dump.cpp),
 * with its element names, order and number formats (%f: six decimals; %d: an integer), so
 * that the stats sites that import BOINC projects can import ours unchanged. Fields BOINC
 * has and Cobblestone does not keep are written as BOINC writes an empty value (strings) or
 * left out (host hardware detail, which BOINC learns from the client's scheduler RPCs).
 * The .ndjson siblings carry the same fields as JSON, numbers unrounded.
 */
import { XML_DECLARATION, escapeXml } from "../http/xml";

export type StatsTable = "user" | "team" | "host";

/** db_dump's root tag of each file. */
const ROOT_TAG: Record<StatsTable, string> = { user: "users", team: "teams", host: "hosts" };

export interface CreditRow {
  readonly id: number;
  readonly name: string | null;
  readonly createTime: number;
  readonly totalCredit: number;
  readonly expavgCredit: number;
  readonly expavgTime: number;
}
export interface UserRow extends CreditRow {
  readonly teamId: number;
  readonly cpid: string | null;
}
export interface HostRow extends CreditRow {
  readonly hostCpid: string | null;
}

/** C's %f. */
const f = (x: number) => x.toFixed(6);
/** C's %d of BOINC's integer times. */
const d = (x: number) => String(Math.trunc(x));
const s = (x: string | null) => escapeXml(x ?? "");

export function fileHead(table: StatsTable): string {
  return `${XML_DECLARATION}\n<${ROOT_TAG[table]}>\n`;
}

export function fileTail(table: StatsTable): string {
  return `</${ROOT_TAG[table]}>\n`;
}

export function userXml(u: UserRow): string {
  return (
    "<user>\n" +
    ` <id>${u.id}</id>\n` +
    ` <name>${s(u.name)}</name>\n` +
    ` <create_time>${d(u.createTime)}</create_time>\n` +
    ` <total_credit>${f(u.totalCredit)}</total_credit>\n` +
    ` <expavg_credit>${f(u.expavgCredit)}</expavg_credit>\n` +
    ` <expavg_time>${f(u.expavgTime)}</expavg_time>\n` +
    ` <cpid>${s(u.cpid)}</cpid>\n` +
    (u.teamId !== 0 ? ` <teamid>${u.teamId}</teamid>\n` : "") +
    "</user>\n"
  );
}

/** Teams have no type, founder or country here: type 0 (BOINC's "unknown"), userid 0, empty country. */
export function teamXml(t: CreditRow): string {
  return (
    "<team>\n" +
    ` <id>${t.id}</id>\n` +
    " <type>0</type>\n" +
    ` <name>${s(t.name)}</name>\n` +
    " <userid>0</userid>\n" +
    ` <total_credit>${f(t.totalCredit)}</total_credit>\n` +
    ` <expavg_credit>${f(t.expavgCredit)}</expavg_credit>\n` +
    ` <expavg_time>${f(t.expavgTime)}</expavg_time>\n` +
    ` <create_time>${d(t.createTime)}</create_time>\n` +
    " <country></country>\n" +
    "</team>\n"
  );
}

/**
 * The default spec dumps hosts with detail. The owner (userid) is left out, as BOINC leaves it
 * out for owners who have not chosen to show their hosts (Cobblestone does not know that choice).
 */
export function hostXml(h: HostRow): string {
  return (
    "<host>\n" +
    `    <id>${h.id}</id>\n` +
    `    <total_credit>${f(h.totalCredit)}</total_credit>\n` +
    `    <expavg_credit>${f(h.expavgCredit)}</expavg_credit>\n` +
    `    <expavg_time>${f(h.expavgTime)}</expavg_time>\n` +
    "    <p_vendor></p_vendor>\n" +
    "    <p_model></p_model>\n" +
    "    <os_name></os_name>\n" +
    "    <os_version></os_version>\n" +
    "    <misc><![CDATA[]]></misc>\n" +
    `  <create_time>${d(h.createTime)}</create_time>\n` +
    `  <host_cpid>${s(h.hostCpid)}</host_cpid>\n` +
    "</host>\n"
  );
}

const credit = (r: CreditRow) => ({
  create_time: r.createTime,
  total_credit: r.totalCredit,
  expavg_credit: r.expavgCredit,
  expavg_time: r.expavgTime,
});

export function userJson(u: UserRow): string {
  return JSON.stringify({ id: u.id, name: u.name, ...credit(u), cpid: u.cpid, teamid: u.teamId }) + "\n";
}

export function teamJson(t: CreditRow): string {
  return JSON.stringify({ id: t.id, name: t.name, ...credit(t) }) + "\n";
}

export function hostJson(h: HostRow): string {
  return JSON.stringify({ id: h.id, ...credit(h), host_cpid: h.hostCpid }) + "\n";
}

export interface TablesSummary {
  readonly updateTime: number;
  readonly nusers: number;
  readonly nteams: number;
  readonly nhosts: number;
  /** Summed total_credit of the users counted in nusers. */
  readonly totalCredit: number;
  readonly apps: readonly string[];
}

/** tables.xml: counts only when non-zero, as db_dump writes them. */
export function tablesXml(t: TablesSummary): string {
  return (
    `${XML_DECLARATION}\n<tables>\n` +
    `    <update_time>${d(t.updateTime)}</update_time>\n` +
    (t.nusers ? `    <nusers_total>${t.nusers}</nusers_total>\n` : "") +
    (t.nteams ? `    <nteams_total>${t.nteams}</nteams_total>\n` : "") +
    (t.nhosts ? `    <nhosts_total>${t.nhosts}</nhosts_total>\n` : "") +
    (t.totalCredit ? `    <total_credit>${f(t.totalCredit)}</total_credit>\n` : "") +
    "    <applications>\n" +
    t.apps.map((a) => `        <application>\n            <name>${s(a)}</name>\n        </application>\n`).join("") +
    "    </applications>\n" +
    "    <badges>\n    </badges>\n" +
    "</tables>\n"
  );
}
