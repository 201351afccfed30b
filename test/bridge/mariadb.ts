/**
 * Starts Debian's MariaDB server for a test: its own temporary datadir, socket and free port,
 * stopped (and the datadir removed) afterwards. `mariadbAvailable()` is false where the
 * binaries are missing, and the tests skip with a message.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import mysql from "mysql2/promise";
import { freePort, startWranglerDev, type WranglerDev } from "../browser/wrangler-dev";

const SERVER = ["/usr/sbin/mariadbd", "/usr/bin/mariadbd"].find(existsSync);
const INSTALL = ["/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db"].find(existsSync);

export const MARIADB_MISSING = "MariaDB is not installed (apt-get install mariadb-server): the bridge tests are skipped";

export function mariadbAvailable(): boolean {
  return SERVER !== undefined && INSTALL !== undefined;
}

export interface MariaDb {
  readonly port: number;
  readonly socket: string;
  /** A connection as root over the socket (to create and load the test database). */
  root(database?: string): Promise<mysql.Connection>;
  /** Stops the server (SIGTERM, as `systemctl stop`), waits `downMs`, starts it again on the same datadir and port (the soak benchmark). */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** `serverArgs`: more mariadbd options (the soak benchmark lowers innodb_lock_wait_timeout). */
export async function startMariaDb(timeoutMs = 60_000, serverArgs: string[] = []): Promise<MariaDb> {
  if (!SERVER || !INSTALL) throw new Error(MARIADB_MISSING);
  const dir = await mkdtemp(join(tmpdir(), "cobblestone-mariadb-"));
  const datadir = join(dir, "data");
  const socket = join(dir, "mysqld.sock");
  // CI runs as root, and mariadbd refuses root unless told: run it as whoever we are.
  const user = userInfo().username;
  await promisify(execFile)(INSTALL, [
    "--no-defaults",
    `--datadir=${datadir}`,
    `--user=${user}`,
    "--auth-root-authentication-method=normal",
    "--skip-test-db",
    // Its own temporary files: bootstraps running at once in /tmp collide on their temp tables.
    `--tmpdir=${dir}`,
  ]);
  const port = await freePort();
  let output = "";
  const spawnServer = (): ChildProcess => {
    const server = spawn(
      SERVER,
      [
        "--no-defaults",
        `--datadir=${datadir}`,
        `--socket=${socket}`,
        `--port=${port}`,
        "--bind-address=127.0.0.1",
        `--user=${user}`,
        `--pid-file=${join(dir, "mysqld.pid")}`,
        `--tmpdir=${dir}`,
        "--skip-log-bin",
        "--innodb-buffer-pool-size=128M",
        "--innodb-flush-log-at-trx-commit=2",
        ...serverArgs,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    server.stdout!.on("data", (d) => (output += d));
    server.stderr!.on("data", (d) => (output += d));
    return server;
  };
  let child = spawnServer();

  const root = (database?: string) =>
    mysql.createConnection({ socketPath: socket, user: "root", password: "", database, multipleStatements: true });
  const stopServer = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const killed = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(killed);
    }
  };
  const stop = async () => {
    await stopServer();
    await rm(dir, { recursive: true, force: true });
  };
  const ready = async () => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`mariadbd exited (${child.exitCode}):\n${output}`);
      try {
        await (await root()).end();
        return;
      } catch {
        if (Date.now() > deadline) {
          await stop();
          throw new Error(`mariadbd did not accept connections within ${timeoutMs} ms:\n${output}`);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  const restart = async (downMs = 0) => {
    await stopServer();
    await new Promise((r) => setTimeout(r, downMs));
    child = spawnServer();
    await ready();
  };

  await ready();
  return { port, socket, root, restart, stop };
}

/**
 * MariaDB and `wrangler dev` for a bridge test, started side by side. If either fails the
 * other is stopped before the error is thrown: the test's afterAll never got it, and it would
 * outlive the run.
 */
export async function startMariaDbAndServer(adminToken: string): Promise<[MariaDb, WranglerDev]> {
  const [maria, server] = await Promise.allSettled([startMariaDb(), startWranglerDev(adminToken)]);
  if (maria.status === "fulfilled" && server.status === "fulfilled") return [maria.value, server.value];
  await Promise.all([maria.status === "fulfilled" && maria.value.stop(), server.status === "fulfilled" && server.value.stop()]);
  throw maria.status === "rejected" ? maria.reason : (server as PromiseRejectedResult).reason;
}
