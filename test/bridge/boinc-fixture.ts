/** One MariaDB with BOINC databases for the bridge tests, and a read-only account like a project would give the bridge. */
import { readFileSync } from "node:fs";
import { BOINC_TABLES } from "./boinc-schema";
import { loadTrace } from "./load-trace";
import type { MariaDb } from "./mariadb";
import { parseTrace, type TraceExpected } from "./trace-types";

export const BRIDGE_USER = { name: "bridge", password: "s3cret pass" };

export const fixtureText = (name: string) => readFileSync(new URL(`../fixtures/traces/${name}`, import.meta.url), "utf8");

/** A database with BOINC's tables, readable (only) by BRIDGE_USER; returns its DSN. */
export async function createBoincDb(maria: MariaDb, name: string): Promise<string> {
  const root = await maria.root();
  await root.query(`CREATE DATABASE \`${name}\``);
  await root.query(`USE \`${name}\`; ${BOINC_TABLES}`);
  await root.query(`CREATE USER IF NOT EXISTS '${BRIDGE_USER.name}'@'127.0.0.1' IDENTIFIED BY '${BRIDGE_USER.password}'`);
  await root.query(`GRANT SELECT ON \`${name}\`.* TO '${BRIDGE_USER.name}'@'127.0.0.1'`);
  await root.end();
  return `mysql://${BRIDGE_USER.name}:${encodeURIComponent(BRIDGE_USER.password)}@127.0.0.1:${maria.port}/${name}`;
}

/** A BOINC database holding a trace the way BOINC's validator leaves it. */
export async function boincDbWithTrace(maria: MariaDb, name: string, trace: string) {
  const dsn = await createBoincDb(maria, name);
  const ops = parseTrace(fixtureText(`${trace}.jsonl`));
  const expected = JSON.parse(fixtureText(`${trace}.expected.json`)) as TraceExpected;
  const conn = await maria.root(name);
  await loadTrace(conn, ops, expected);
  await conn.end();
  const appNumbers = new Map<string, number>();
  for (const op of ops) if (op.op === "app") appNumbers.set(op.name, appNumbers.size + 1);
  return { dsn, ops, expected, appNumbers };
}
