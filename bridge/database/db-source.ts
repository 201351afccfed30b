/**
 * Where the BOINC database's address and password come from, so the password need not be on
 * the command line (where `ps` shows it): `--db URL`, else the BOINC_DB_URL environment
 * variable, else the project's own config.xml (`--boinc-config`), whose replica is preferred
 * when it has one (BOINC's read-only tools read the replica too).
 */
import { readFile } from "node:fs/promises";
import { daemonCommandLines, optionValue, parseConfig } from "./config-xml";
import { type FoundMode, modesFromConfig } from "./credit-modes";
import { withDsnParams } from "./db-params";
import { type TrickleDaemon, trickleDaemonOfConfig } from "./trickle-config";
import { BridgeError } from "../shared/errors";

/** A mysql:// URL for BOINC's config.xml database settings (replica_db_* when replica_db_host is set). */
export function dsnFromBoincConfig(xml: string, file = "config.xml", primary = false): string {
  const config = configSection(xml, file);
  const text = (key: string) => {
    const v = config[key];
    return v === undefined || v === null ? "" : String(v);
  };
  const prefix = !primary && text("replica_db_host") ? "replica_db_" : "db_";
  const name = text(`${prefix}name`) || text("db_name");
  if (!name) throw new BridgeError(`${file} has no <db_name>`);
  const [host = "localhost", port = "3306"] = (text(`${prefix}host`) || "localhost").split(":");
  // encodeURIComponent, not URL's setters: they leave a '%' in a password as it is.
  const user = encodeURIComponent(text(`${prefix}user`) || text("db_user"));
  const password = encodeURIComponent(text(`${prefix}passwd`) || text("db_passwd"));
  return `mysql://${user}:${password}@${host}:${port}/${encodeURIComponent(name)}`;
}

/** Whether config.xml has <credit_by_app/> (BOINC's validator then keeps credit_user and credit_team). */
export function creditByAppInConfig(xml: string, file = "config.xml"): boolean {
  return "credit_by_app" in configSection(xml, file);
}

/** The validators' --max_granted_credit, per app (`--app NAME` on the same command line), from config.xml's <daemons>. */
export function validatorCapsFromConfig(xml: string, file = "config.xml"): Map<string, number> {
  const caps = new Map<string, number>();
  for (const words of daemonCommandLines(xml, file)) {
    const app = optionValue(words, "app");
    const cap = optionValue(words, "max_granted_credit");
    if (app === undefined || cap === undefined) continue;
    const n = Number(cap);
    if (!Number.isFinite(n) || n < 0)
      throw new BridgeError(`${file}: a validator of app '${app}' has --max_granted_credit '${cap}', not a number`);
    caps.set(app, n);
  }
  return caps;
}

function configSection(xml: string, file: string): Record<string, unknown> {
  const parsed = parseConfig(xml, file);
  const section = parsed.boinc?.config ?? parsed.config;
  if (section === undefined) throw new BridgeError(`${file} has no <config> section (is it the project's config.xml?)`);
  // An empty <config/> parses as "".
  return typeof section === "object" && section !== null ? (section as Record<string, unknown>) : {};
}

export async function resolveDsn(db: string | undefined, boincConfig: string | undefined, env: NodeJS.ProcessEnv): Promise<string | null> {
  return (await resolveDatabase(db, boincConfig, env, false)).dsn;
}

async function readConfig(boincConfig: string): Promise<string> {
  try {
    return await readFile(boincConfig, "utf8");
  } catch (e) {
    throw new BridgeError(`cannot read --boinc-config ${boincConfig}: ${(e as Error).message}`);
  }
}

/** Where the database URL came from. */
export type DsnSource = "--db" | "BOINC_DB_URL" | "config.xml";

/** config.xml's db_user: the project's own database account (BOINC's daemons and web pages use it). */
export function projectUserOfConfig(xml: string, file = "config.xml"): string | null {
  const user = configSection(xml, file).db_user;
  return user === undefined || user === null || String(user) === "" ? null : String(user);
}

/** The user a mysql:// URL logs in as (null if it is no such URL: connecting names that problem). */
export function userOfDsn(dsn: string): string | null {
  try {
    return decodeURIComponent(new URL(dsn).username);
  } catch {
    return null;
  }
}

/**
 * The database to use, and whether config.xml asks for per-app credit. A write-back (`primary`)
 * never takes the replica: it writes, and a replica's rows are the primary's, copied later.
 * `params` (--db-params) are added to the URL's own parameters, wherever it came from: config.xml
 * has no TLS settings (db-params.ts).
 * `projectUser`: config.xml's db_user, the project's own account (null without --boinc-config).
 */
export async function resolveDatabase(
  db: string | undefined,
  boincConfig: string | undefined,
  env: NodeJS.ProcessEnv,
  primary: boolean,
  params?: string,
): Promise<{
  dsn: string | null;
  source: DsnSource | null;
  projectUser: string | null;
  creditByApp: boolean;
  validatorCaps: Map<string, number>;
  /** Each app's credit mode as config.xml's daemons state it (credit-modes.ts). */
  creditModes: Map<string, FoundMode>;
  /** config.xml's trickle_credit daemon, for trickleSettings (trickle-config.ts); null without one or without --boinc-config. */
  trickleDaemon: TrickleDaemon | null;
}> {
  const xml = boincConfig === undefined ? null : await readConfig(boincConfig);
  const creditByApp = xml !== null && creditByAppInConfig(xml, boincConfig);
  const validatorCaps = xml === null ? new Map<string, number>() : validatorCapsFromConfig(xml, boincConfig);
  const creditModes = xml === null ? new Map<string, FoundMode>() : modesFromConfig(daemonCommandLines(xml, boincConfig), boincConfig);
  const projectUser = xml === null ? null : projectUserOfConfig(xml, boincConfig);
  const trickleDaemon = xml === null ? null : trickleDaemonOfConfig(xml, boincConfig);
  const from = (dsn: string | null, source: DsnSource | null) => ({
    dsn,
    source,
    projectUser,
    creditByApp,
    validatorCaps,
    creditModes,
    trickleDaemon,
  });
  if (db) return from(withDsnParams(db, params), "--db");
  if (env.BOINC_DB_URL) return from(withDsnParams(env.BOINC_DB_URL, params), "BOINC_DB_URL");
  return xml === null ? from(null, null) : from(withDsnParams(dsnFromBoincConfig(xml, boincConfig, primary), params), "config.xml");
}
