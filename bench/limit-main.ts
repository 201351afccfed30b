/**
 * The storage-limit run on its own (`tsx bench/limit-main.ts <now> [--quick]`): run.ts starts
 * it with a Node that can load better-sqlite3's compiled addon, and reads its JSON from stdout.
 */
import { join } from "node:path";
import { phaseBodies } from "./phases";
import { type LimitRow, openLimitDb, runLimit } from "./sqlite-limit";

const root = new URL("..", import.meta.url).pathname;
const now = Number(process.argv[2]);
const quick = process.argv.includes("--quick");

const sqlite = openLimitDb(join(root, "migrations"));
const rows: LimitRow[] = [];
for (const phase of phaseBodies(quick, now)) {
  rows.push(await runLimit(sqlite, phase.size, phase.bodies()));
}
sqlite.close();
process.stdout.write(JSON.stringify({ node: process.version, rows }));
