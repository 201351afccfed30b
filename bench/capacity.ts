/**
 * `npm run capacity -- --results-per-day N --hosts H [...]`: projects one project's D1
 * databases (the ledger and its history databases), D1 rows and KV writes over time from the
 * bytes and rows `npm run bench` measured (bench/results/cost.json), and prices them at
 * Cloudflare's published rates (BENCHMARKS.md cites the pages); the model is
 * bench/capacity-model.ts. Options:
 *   --results-per-day N   validated results a day (required)
 *   --hosts H             hosts credited (required); users and teams in the bench's proportion
 *   --retention-days D    the project's result window (default 30)
 *   --daily-history-days S  days of daily history before the monthly roll-up (default 730)
 *   --host-reports-per-day R  how often a host's results arrive (default 24): KV snapshot writes
 *   --holder-reads M      snapshots, live or auto (default auto: live when the minute cron could
 *                         not write every changed holder's snapshot; docs/public-reads.md)
 *   --lookups-per-day L   public reads of single holders a day reaching D1 when live (default: hosts)
 *   --years Y             how far to project (default 5)
 *   --fold-hours H,…      also project a design that is NOT built: holders' and per-app credit
 *                         folded every H hours, reads adding what is pending
 *                         (bench/fold-cadence.ts), one row per H, beside today's cadence
 *   --cost FILE           the measured figures (default bench/results/cost.json)
 *   --json                one JSON object (databases, max_database_gb, dollars_per_month,
 *                         dollars_per_million_results…) instead of the tables for people
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { CostSummary } from "./cost-summary";
import { DEFAULT_DAILY_HISTORY_DAYS, DEFAULT_RESULT_RETENTION_DAYS } from "../src/config";
import { GB, HISTORY_DATABASE_FILL_GB, MONTH_DAYS, PRICES, type Profile, capacity, project } from "./capacity-model";
import { foldedMonth } from "./fold-cadence";

function main() {
  const { values } = parseArgs({
    options: {
      "results-per-day": { type: "string" },
      hosts: { type: "string" },
      "retention-days": { type: "string", default: String(DEFAULT_RESULT_RETENTION_DAYS) },
      "daily-history-days": { type: "string", default: String(DEFAULT_DAILY_HISTORY_DAYS) },
      "host-reports-per-day": { type: "string", default: "24" },
      "holder-reads": { type: "string", default: "auto" },
      "lookups-per-day": { type: "string" },
      years: { type: "string", default: "5" },
      "fold-hours": { type: "string" },
      cost: { type: "string", default: join(new URL("..", import.meta.url).pathname, "bench/results/cost.json") },
      json: { type: "boolean", default: false },
    },
  });
  const holderReads = values["holder-reads"];
  if (!values["results-per-day"] || !values.hosts || (holderReads !== "auto" && holderReads !== "snapshots" && holderReads !== "live")) {
    console.error(
      "usage: npm run capacity -- --results-per-day N --hosts H [--retention-days D] [--daily-history-days S] [--host-reports-per-day R] [--holder-reads snapshots|live|auto] [--lookups-per-day L] [--years Y] [--fold-hours H,…] [--json]",
    );
    process.exit(2);
  }
  const cost = JSON.parse(readFileSync(values.cost!, "utf8")) as CostSummary;
  if (!cost.tableBytes || !cost.nextDay.bytesByTable) {
    console.error(`${values.cost} has no bytes by table (it predates them): run \`npx tsx bench/cost.ts\` (or \`npm run bench\`) first`);
    process.exit(2);
  }
  const p: Profile = {
    resultsPerDay: Number(values["results-per-day"]),
    hosts: Number(values.hosts),
    retentionDays: Number(values["retention-days"]),
    hostReportsPerDay: Number(values["host-reports-per-day"]),
    dailyHistoryDays: Number(values["daily-history-days"]),
    holderReads,
    ...(values["lookups-per-day"] === undefined ? {} : { lookupsPerDay: Number(values["lookups-per-day"]) }),
  };
  const years = Number(values.years);
  const c = capacity(cost, p, years);
  const foldHours = values["fold-hours"]?.split(",").map(Number) ?? [];
  const folds = foldHours.map((h) => ({ every_hours: h, ...foldedMonth(cost, p, years, 24 / h) }));
  if (values.json) {
    console.log(JSON.stringify(foldHours.length > 0 ? { ...c, fold_projection: folds } : c, null, 2));
    return;
  }
  const m = c.measured;
  const gb = (n: number) => n.toFixed(2);
  console.log(
    `Measured (bench's second day, steady state): ${m.rowsWrittenPerResult.toFixed(2)} D1 rows written and ${m.rowsReadPerResult.toFixed(1)} read per validated result; ${m.resultBytesPerResult.toFixed(0)} bytes of results and workunits per validated result; ${m.historyBytesPerRow.toFixed(0)} bytes per history row; ${m.bytesPerAccount.toFixed(0)} bytes per account besides those.`,
  );
  console.log(
    `Profile: ${p.resultsPerDay.toLocaleString("en-US")} results/day, ${p.hosts.toLocaleString("en-US")} hosts, ${p.retentionDays}-day result window, ${p.dailyHistoryDays} days of daily history, each host reporting ${p.hostReportsPerDay} times a day.`,
    "",
  );
  console.log("| after | ledger GB | of which results | history GB (all databases) | history databases |");
  console.log("| ---: | ---: | ---: | ---: | ---: |");
  for (const d of [30, 90, 365, 730, 1095, 1825].filter((d) => d <= years * 365)) {
    const s = project(m, p, d);
    console.log(
      `| ${d} days | ${gb(s.ledgerBytes / GB)} | ${gb(s.resultBytes / GB)} | ${gb(s.historyBytes / GB)} | ${Math.max(1, Math.ceil(s.historyBytes / GB / HISTORY_DATABASE_FILL_GB))} |`,
    );
  }
  console.log("");
  const reported = Object.keys(c.databases[0]!.size_gb);
  console.log(`| database | role | ${reported.map((y) => `GB after ${y} y`).join(" | ")} |`);
  console.log(`| --- | --- | ${reported.map(() => "---:").join(" | ")} |`);
  for (const d of c.databases) console.log(`| ${d.name} | ${d.role} | ${reported.map((y) => gb(d.size_gb[y]!)).join(" | ")} |`);
  console.log("");
  console.log(`Largest database: ${gb(c.max_database_gb)} GB (D1's cap: ${PRICES.d1MaxDatabaseGb} GB).`);
  const mo = c.month;
  console.log(`Holder reads: ${mo.holderReads.mode} (${mo.holderReads.chosen}: ${mo.holderReads.why}).`);
  console.log(
    `A month: ${(mo.rowsWritten / 1e6).toFixed(0)} M D1 rows written, ${(mo.rowsRead / 1e6).toFixed(0)} M read, ${(mo.kvWrites / 1e6).toFixed(1)} M KV writes, ${gb(mo.storageGb)} GB stored (${mo.storagePricedAt}).`,
  );
  console.log(
    `Dollars a month (Workers Paid, beyond what it includes): D1 writes $${mo.dollars.d1Writes.toFixed(2)}, D1 reads $${mo.dollars.d1Reads.toFixed(2)}, D1 storage $${mo.dollars.d1Storage.toFixed(2)}, KV writes $${mo.dollars.kvWrites.toFixed(2)}: $${c.dollars_per_month.toFixed(2)}.`,
  );
  console.log(
    `Per million validated results (D1 writes, reads, storage and KV): $${c.dollars_per_million_results.toFixed(2)} (${(mo.results / 1e6).toFixed(0)} M results in ${MONTH_DAYS} days).`,
  );
  printFolds(folds);
}

type FoldRow = { every_hours: number } & ReturnType<typeof foldedMonth>;

/** The --fold-hours table: today's cadence projected the same way, then each fold interval. */
function printFolds(folds: readonly FoldRow[]) {
  if (folds.length === 0) return;
  console.log("");
  console.log(
    "Projected, NOT built (bench/fold-cadence.ts): hosts', users', teams' and per-app credit written by a fold every H hours instead of by every pass (per-app: the hourly fold), reads adding the pending queue rows. Rows written per validated result:",
    "",
  );
  console.log(
    "| cadence | hosts | users | teams | per-app users | per-app teams | all rows written | rows read per host read for its pending grants | rows read per minute to rank with them | D1 rows read a month | $ a month | $ per million |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const line = (label: string, pick: "today" | "folded", f: FoldRow) => {
    const c = f.projection.classes;
    const mo = f[pick];
    const rows = pick === "today" ? f.projection.rowsWrittenToday : f.projection.rowsWrittenFolded;
    const tail = pick === "today" ? 0 : f.projection.tailRowsPerLookup;
    const ranking = pick === "today" ? 0 : f.projection.rankingRowsPerMinute;
    console.log(
      `| ${label} | ${[c.hosts, c.users, c.teams, c.userApps, c.teamApps].map((x) => x[pick].toFixed(3)).join(" | ")} | ${rows.toFixed(2)} | ${tail.toFixed(0)} | ${(ranking / 1e6).toFixed(2)} M | ${(mo.rowsRead / 1e9).toFixed(1)} G | $${mo.total.toFixed(2)} | $${mo.perMillionResults.toFixed(2)} |`,
    );
  };
  line("today: every pass; per-app hourly", "today", folds[0]!);
  for (const f of folds) line(`a fold every ${f.every_hours} h`, "folded", f);
}

if (process.argv[1]?.endsWith("capacity.ts")) main();
