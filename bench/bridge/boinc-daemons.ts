/**
 * The soak's second process (`npm run soak:bridge` spawns it): BOINC's daemons on the soak's
 * database while the bridge follows it. Each daemon is a loop on a connection of its own that
 * comes back after MariaDB is restarted:
 * - the validator with --no_credit, and the work and reports it validates (soak-validator.ts);
 * - the transitioner and the file deleter, rewriting decided results later (soak-file-deleter.ts);
 * - db_purge, deleting old workunits and results, recording them (soak-purge.ts);
 * - update_stats, decaying the recent averages of users, hosts and teams (soak-update-stats.ts).
 * What they decided and deleted goes to --records (soak-records.ts), one line each; their
 * counts go to --counts when SIGTERM stops them.
 *
 * npx tsx bench/bridge/boinc-daemons.ts --socket S --database D --records FILE --counts FILE
 *   [--rate 20] [--purge-after 150] [--stats-every 30] [--seed 1]
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { DaemonDb, Stopped } from "./soak-daemon-db";
import { FileDeleter } from "./soak-file-deleter";
import { Purge } from "./soak-purge";
import { seededRandom } from "./soak-random";
import { emptyCounts, recorder } from "./soak-records";
import { updateStats } from "./soak-update-stats";
import { Validator } from "./soak-validator";

const { values } = parseArgs({
  options: {
    socket: { type: "string" },
    database: { type: "string" },
    records: { type: "string" },
    counts: { type: "string" },
    rate: { type: "string", default: "20" },
    "purge-after": { type: "string", default: "150" },
    "stats-every": { type: "string", default: "30" },
    seed: { type: "string", default: "1" },
  },
});
if (!values.socket || !values.database || !values.records || !values.counts) {
  console.error("boinc-daemons: --socket, --database, --records and --counts are required");
  process.exit(2);
}

const TICK_MS = 1000;
const PURGE_EVERY_MS = 10_000;

let stopping = false;
const counts = emptyCounts();
const record = recorder(values.records);
const settings = { socketPath: values.socket, user: "root", password: "", database: values.database };
const db = (isolation: string | null = null) => new DaemonDb(settings, counts, () => stopping, isolation);
const random = seededRandom(Number(values.seed));

const fileDeleter = new FileDeleter(db(), random, counts);
const validator = new Validator(
  db(),
  { rate: Number(values.rate), lateShare: 0.1, lateInvalidShare: 0.25, badShare: 0.08 },
  random,
  record,
  counts,
  (id, at) => fileDeleter.decided(id, at),
);
const purge = new Purge(db("READ COMMITTED"), Number(values["purge-after"]), record, counts);
const statsDb = db("READ UNCOMMITTED");

/** Sleeps up to `ms`, less when the process is told to stop. */
async function nap(ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!stopping && Date.now() < until) await new Promise((r) => setTimeout(r, Math.min(200, until - Date.now())));
}

/** A daemon: `step` every `everyMs` until SIGTERM; an error is counted and the daemon goes on, as BOINC's are restarted. */
async function daemon(name: string, everyMs: number, step: () => Promise<void>): Promise<void> {
  while (!stopping) {
    const started = Date.now();
    try {
      await step();
    } catch (e) {
      if (e instanceof Stopped) break;
      counts.errors.push(`${name}: ${(e as Error).message}`);
    }
    await nap(everyMs - (Date.now() - started));
  }
}

process.on("SIGTERM", () => (stopping = true));
process.on("SIGINT", () => (stopping = true));

const statsEvery = Number(values["stats-every"]);
await Promise.all([
  daemon("validator", TICK_MS, () => validator.tick(TICK_MS)),
  daemon("file deleter", TICK_MS, () => fileDeleter.tick()),
  daemon("db_purge", PURGE_EVERY_MS, () => purge.tick()),
  // --stats-every 0: no update_stats.
  statsEvery > 0 ? daemon("update_stats", statsEvery * 1000, () => updateStats(statsDb, 0, counts, record)) : Promise.resolve(),
]);
writeFileSync(values.counts, JSON.stringify(counts));
process.exit(0);
