/**
 * Trickle credit's place in the run (trickles.ts: read, post, write back): the messages are
 * posted through the run's service and holders, written by the run's write-back, and their cursor
 * saved by its checkpoint after each round's passes.
 */
import type { CobblestoneApi } from "../service/api-client";
import type { BoincDb } from "../database/boinc-db";
import type { Checkpoint } from "./checkpoint";
import type { HolderRegistrar } from "../service/holders";
import type { RequestPipeline } from "./request-pipeline";
import type { BridgeOptions } from "./run-options";
import type { ServiceApps } from "./service-apps";
import type { Teller } from "../telling/event-log";
import { TrickleFeed } from "./trickles";
import type { WriteBackStage } from "./write-back-stage";

export interface TrickleLinkParts {
  boinc: BoincDb;
  api: CobblestoneApi;
  registrar: HolderRegistrar;
  writeBack: WriteBackStage;
  checkpoint: Checkpoint;
  pipeline: RequestPipeline;
  teller: Teller;
}

/** The run's trickle feed, its write-back's privileges checked and its app prepared; null without trickle credit. */
export async function openTrickleFeed(options: BridgeOptions, apps: ServiceApps, parts: TrickleLinkParts): Promise<TrickleFeed | null> {
  if (!options.trickles) return null;
  const { boinc, writeBack, checkpoint, pipeline, teller } = parts;
  const trickles = new TrickleFeed({
    pool: boinc.reader,
    api: options.dryRun ? null : parts.api,
    registrar: parts.registrar,
    settings: options.trickles,
    write: writeBack.writeTrickles,
    cursor: () => pipeline.saved.trickle_cursor ?? 0,
    saveCursor: (id) => checkpoint.saveTrickleCursor(pipeline, id),
    serverTime: () => boinc.serverTime(),
    log: (line, warn) => (warn ? teller.tell("warn", "trickle_warning", line) : teller.tell("info", "trickle", line)),
    signal: options.signal,
  });
  await writeBack.refuseTrickles();
  await trickles.prepare(apps.databaseApps, apps.serviceApps);
  return trickles;
}
