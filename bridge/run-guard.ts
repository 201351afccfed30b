/**
 * The one-run guard: a MariaDB named lock (GET_LOCK) on a connection of its own, held for the
 * whole run. The server frees it when that connection ends, so a run killed in any way (SIGKILL,
 * the machine gone) never blocks the next, and it holds across machines: every bridge of a
 * project on any machine asks the same server (docs/bridge.md, "Stopping, starting again").
 */
import { createHash } from "node:crypto";
import type mysql from "mysql2/promise";
import { BridgeError } from "./errors";

/** MariaDB refuses lock names over 64 characters. */
const MAX_LOCK_NAME = 64;

export function runLockName(database: string, project: string): string {
  const name = `cobblestone-bridge-${database}-${project}`;
  if (name.length <= MAX_LOCK_NAME) return name;
  return `cobblestone-bridge-${createHash("sha256").update(`${database}\0${project}`).digest("hex").slice(0, 40)}`;
}

export interface RunGuard {
  release(): Promise<void>;
}

/** Takes the project's lock without waiting, or says who holds it (exit 2). */
export async function takeRunGuard(conn: mysql.Connection, database: string, project: string): Promise<RunGuard> {
  const name = runLockName(database, project);
  const [rows] = await conn.query("SELECT GET_LOCK(?, 0) AS got, IS_USED_LOCK(?) AS holder", [name, name]);
  const { got, holder } = (rows as { got: number | null; holder: number | null }[])[0]!;
  if (Number(got) !== 1) {
    throw new BridgeError(
      `another bridge run is working on project '${project}' of database '${database}' (it holds the database lock '${name}', connection ${holder}); this one exits (a run every minute overlaps a long one: that is fine)`,
    );
  }
  return {
    release: async () => {
      await conn.query("SELECT RELEASE_LOCK(?)", [name]).catch(() => undefined);
    },
  };
}
