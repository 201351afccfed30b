/**
 * One bridge run: registers apps and versions, then reads the decided results after the cursor
 * second by second and posts each second as BOINC's validator would have (rescale at a crossed
 * mark, the pass, the errors). Passes of consecutive seconds travel together in one request
 * (POST /pass-batches, applied in order, each with its own `now`) until a rescale or an error
 * report must come between them; the cursor advances only after the service answered.
 *
 * The run is a chain, each link its own file: the follow loop's turns (polls.ts) read each
 * round's rows from the source (round-source.ts); the rounds (round.ts) turn them into rescales,
 * passes and error reports; the request pipeline (request-pipeline.ts) posts the passes one
 * request at a time; the answers (answers.ts) become grants the write-back writes
 * (write-back-stage.ts); then the checkpoint (checkpoint.ts) saves the cursor. This file opens
 * what they need (connections.ts, run-start.ts, service-apps.ts) and links them.
 */
import { Answers } from "./answers";
import { Checkpoint } from "./checkpoint";
import { RunConnections } from "./connections";
import { CreditComparison } from "../telling/compare";
import { DatabaseClock } from "./database-clock";
import { followLoop } from "./follow-loop";
import { FollowMeter } from "./follow-meter";
import { HolderRegistrar } from "../service/holders";
import { Polls } from "./polls";
import { RequestPipeline } from "./request-pipeline";
import { Rounds } from "./round";
import { RoundSource } from "./round-source";
import { monitorRun, progressLine } from "./run-monitor";
import { type BridgeOptions, UPKEEP_BATCHES } from "./run-options";
import { type BridgeReport, endReport, roundTelling } from "./run-report";
import { startRun } from "./run-start";
import { AppCeilings, registerServiceApps } from "./service-apps";
import { normalizeServiceUrl } from "../service/service-url";
import { Teller } from "../telling/event-log";
import { openTrickleFeed } from "./trickle-link";
import { WriteBackStage } from "./write-back-stage";

// What a caller of a run needs, from where it is defined.
export { BridgeError } from "../shared/errors";
export { type BridgeOptions, bridgeOptions, DEFAULT_RESCALE_EVERY } from "./run-options";
export type { BridgeReport } from "./run-report";

export async function runBridge(options: BridgeOptions): Promise<BridgeReport> {
  const teller = new Teller(options.events, options.log);
  const { status = null, dryRun } = options;
  const follow = options.follow ?? null;
  const started = Date.now();
  const url = normalizeServiceUrl(options.url);
  const ceilings = new AppCeilings(options.validatorCaps);
  const connections = await RunConnections.lock(options, url, teller, status, ceilings);
  try {
    // Opening: the service is checked while the database is opened (a database that fails is told first).
    const api = connections.api();
    const boinc = await connections.open(api.check());
    const { state, seenAt, until } = await startRun(options, url, () => boinc.serverTime(), connections.writeBacks !== null, teller);
    // The write-back opens, and the first rows are read, while the apps are registered.
    const writeBack = new WriteBackStage(connections.writeBacks, boinc, teller);
    const source = new RoundSource(boinc, state, writeBack, options);
    const firstRows = source.first(until);
    const apps = await registerServiceApps(boinc, api, options, ceilings, writeBack, teller);
    // The pipeline: each request posted, its answer made grants, written back, then the checkpoint saves.
    const progress = progressLine(options, boinc, state.cursor, until);
    const comparison = options.compare ? new CreditComparison(options.compare) : null;
    const clock = new DatabaseClock();
    const meter = follow ? new FollowMeter() : null;
    const answers = new Answers({ ceilings, comparison, source, meter, clock, writeBack: writeBack.on, status, teller });
    const checkpoint = new Checkpoint(options.stateFile, dryRun, writeBack.on);
    const pipeline = new RequestPipeline(state, {
      post: dryRun ? null : (passes) => api.postPassBatch({ passes }),
      grants: answers.grants,
      write: writeBack.write,
      written: answers.written,
      save: checkpoint.save,
      keepRows: writeBack.on || follow !== null,
      passesPerRequest: options.passesPerRequest,
    });
    const writeBackReport = () => connections.writeBacks?.report ?? null;
    const countUnpaid = writeBack.on ? writeBack.countUnpaid : null;
    const unpaid = (connections.unpaid = monitorRun(options, status, { pipeline, state, writeBackReport, countUnpaid, teller }));
    const registrar = new HolderRegistrar(boinc, dryRun ? null : api);
    const trickles = await openTrickleFeed(options, apps, { boinc, api, registrar, writeBack, checkpoint, pipeline, teller });
    // The rounds: each second's rows made rescales, passes and error reports, into the pipeline.
    const rounds = new Rounds({
      ...roundTelling(teller, progress),
      pipeline,
      api: dryRun ? null : api,
      registrar,
      knownVersions: apps.knownVersions,
      credits: { mode: (app) => apps.modes.get(app), cap: (app) => ceilings.now.of(app) },
      rescaleEvery: options.rescaleEvery,
      follow: follow !== null,
      posted: source.posted,
      maxSeconds: options.maxSeconds,
      signal: options.signal,
    });
    // The follow loop: one round (a backfill), or one per poll until the signal aborts.
    const chain = { state, source, rounds, pipeline, writeBack, trickles };
    const polls = new Polls(chain, { seenAt, firstRows, clock, options, connections, meter, unpaid, status, teller });
    await followLoop(polls);
    if (options.signal?.aborted) rounds.counts.interrupted = true;
    else if (!follow) {
      await polls.upkeep(UPKEEP_BATCHES.end);
      await unpaid?.countNow();
    }
    progress.finish();
    const tally = { rounds: rounds.counts, pipeline: pipeline.counts, replayed: answers.replayed, holders: registrar.count, started };
    const reports = { cursor: state.cursor, write_back: writeBackReport(), lag: meter?.lag ?? null, trickles: trickles?.report ?? null };
    return await endReport({ ...tally, ...reports }, comparison, teller);
  } catch (e) {
    status?.failed("fatal");
    throw e;
  } finally {
    await connections.close();
  }
}
