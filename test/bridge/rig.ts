/**
 * What a bridge test file starts once and stops at its end: MariaDB and `wrangler dev`
 * (startMariaDbAndServer), a temporary work directory, and, if asked, a stand-in service in
 * front of the server. Called at describe level, it registers that describe's beforeAll and
 * afterAll; the afterAll also SIGKILLs any bridge CLI a failed test left running.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { WranglerDev } from "../browser/wrangler-dev";
import { killBridges } from "./bridge-cli";
import { type MariaDb, startMariaDbAndServer } from "./mariadb";
import { StandInService } from "./stand-in-service";

export interface RigOptions {
  /** The work directory's name prefix (`cobblestone-audit-`); without it there is none. */
  work?: string;
  /** A stand-in service in front of the server (its `base` is what the bridge is given). */
  standIn?: boolean;
}

/** Read in a test or a later hook: each throws if the beforeAll did not start it, rather than handing on undefined. */
export interface Rig {
  readonly maria: MariaDb;
  readonly server: WranglerDev;
  readonly work: string;
  readonly standIn: StandInService;
}

export function bridgeRig(adminToken: string, options: RigOptions = {}): Rig {
  let maria: MariaDb | undefined;
  let server: WranglerDev | undefined;
  let work: string | undefined;
  let standIn: StandInService | undefined;

  beforeAll(async () => {
    [maria, server] = await startMariaDbAndServer(adminToken);
    if (options.standIn) standIn = await StandInService.start(server.base);
    if (options.work) work = await mkdtemp(join(tmpdir(), options.work));
  });
  afterAll(async () => {
    killBridges();
    await Promise.all([standIn?.stop(), maria?.stop(), server?.stop(), work && rm(work, { recursive: true, force: true })]);
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the rig has no ${what}: not started yet, or not asked for (bridgeRig's options)`);
    return value;
  };
  return {
    get maria() {
      return started(maria, "MariaDB");
    },
    get server() {
      return started(server, "server");
    },
    get work() {
      return started(work, "work directory");
    },
    get standIn() {
      return started(standIn, "stand-in service");
    },
  };
}
