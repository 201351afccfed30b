/**
 * Where the BOINC database's address and password come from, so the password need not be on
 * the command line (where `ps` shows it): `--db URL`, else the BOINC_DB_URL environment
 * variable, else the project's own config.xml (`--boinc-config`), whose replica is preferred
 * when it has one (BOINC's read-only tools read the replica too).
 */
import { readFile } from "node:fs/promises";
import { XMLParser } from "fast-xml-parser";
import { BridgeError } from "./errors";

/** A mysql:// URL for BOINC's config.xml database settings (replica_db_* when replica_db_host is set). */
export function dsnFromBoincConfig(xml: string, file = "config.xml"): string {
  let parsed: { boinc?: { config?: unknown }; config?: unknown };
  try {
    parsed = new XMLParser({ parseTagValue: false, trimValues: true }).parse(xml);
  } catch (e) {
    throw new BridgeError(`${file} is not XML: ${(e as Error).message}`);
  }
  const section = parsed.boinc?.config ?? parsed.config;
  if (section === undefined) throw new BridgeError(`${file} has no <config> section (is it the project's config.xml?)`);
  // An empty <config/> parses as "".
  const config: Record<string, unknown> = typeof section === "object" && section !== null ? (section as Record<string, unknown>) : {};
  const text = (key: string) => {
    const v = config[key];
    return v === undefined || v === null ? "" : String(v);
  };
  const prefix = text("replica_db_host") ? "replica_db_" : "db_";
  const name = text(`${prefix}name`) || text("db_name");
  if (!name) throw new BridgeError(`${file} has no <db_name>`);
  const [host = "localhost", port = "3306"] = (text(`${prefix}host`) || "localhost").split(":");
  // encodeURIComponent, not URL's setters: they leave a '%' in a password as it is.
  const user = encodeURIComponent(text(`${prefix}user`) || text("db_user"));
  const password = encodeURIComponent(text(`${prefix}passwd`) || text("db_passwd"));
  return `mysql://${user}:${password}@${host}:${port}/${encodeURIComponent(name)}`;
}

export async function resolveDsn(db: string | undefined, boincConfig: string | undefined, env: NodeJS.ProcessEnv): Promise<string | null> {
  if (db) return db;
  if (env.BOINC_DB_URL) return env.BOINC_DB_URL;
  if (!boincConfig) return null;
  let xml: string;
  try {
    xml = await readFile(boincConfig, "utf8");
  } catch (e) {
    throw new BridgeError(`cannot read --boinc-config ${boincConfig}: ${(e as Error).message}`);
  }
  return dsnFromBoincConfig(xml, boincConfig);
}
