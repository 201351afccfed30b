/**
 * BOINC's daemons as a process of their own, for the switch-over test: the scheduler keeps
 * taking reported results, the validator validates them about a second later (granting credit
 * to the result, its workunit and the host, its owner and team, as BOINC's validator does, or
 * with `--no_credit` granting nothing), and the transitioner and the file deleter touch each
 * validated result again 1 to 6 s later, which moves its `mod_time` (BOINC's column is
 * ON UPDATE CURRENT_TIMESTAMP). Every statement commits on its own, as BOINC's do.
 *
 * Run: node --import tsx test/bridge/boinc-daemons.ts SOCKET DATABASE. Commands on stdin, one
 * a line, each acknowledged on stdout (`ok CMD`) once in effect: `grant` (the validator grants),
 * `no_credit` (restarted with --no_credit), `stop` (bin/stop: the validator stops, the scheduler
 * goes on), `quit` (everything stops, after the last result is touched). Each validation is a
 * line `{"validated":ID,"credit":C}`.
 */
import { createInterface } from "node:readline";
import mysql from "mysql2/promise";

const [socketPath, database] = process.argv.slice(2);
const CREDIT = 2.5;
const HOST = { id: 7, user: 3, team: 5 };
type Mode = "grant" | "no_credit" | "stop";

const conn = await mysql.createConnection({ socketPath, user: "root", password: "", database });
let mode: Mode = "stop";
let quitting = false;
/** Validated results waiting for the transitioner and file deleter: id -> when (ms) to touch. */
const untouched = new Map<number, number>();
const queue: string[] = [];
createInterface({ input: process.stdin }).on("line", (line) => queue.push(line.trim()));

let nextId = Number(((await conn.query("SELECT COALESCE(MAX(id), 0) AS n FROM result"))[0] as { n: number }[])[0]!.n) + 1;
let lastReport = 0;

/** The scheduler: a client reports a result every 250 ms (unvalidated; received_time stamped now). */
async function schedule(): Promise<void> {
  if (Date.now() - lastReport < 250) return;
  lastReport = Date.now();
  const id = nextId++;
  await conn.query(
    "INSERT INTO workunit (id, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults) VALUES (?, 1, ?, 1e13, 1e14, 1)",
    [id, `wu${id}`],
  );
  await conn.query(
    `INSERT INTO result (id, workunitid, outcome, hostid, userid, teamid, sent_time, received_time, cpu_time, validate_state,
       granted_credit, elapsed_time, flops_estimate, app_version_id)
     VALUES (?, ?, 1, ?, ?, ?, UNIX_TIMESTAMP() - 3000, UNIX_TIMESTAMP(), 900, 0, 0, 1000, 1e10, 1)`,
    [id, id, HOST.id, HOST.user, HOST.team],
  );
}

/** The validator: results reported at least a second ago, one workunit at a time, each statement on its own. */
async function validate(): Promise<void> {
  const [rows] = await conn.query("SELECT id FROM result WHERE validate_state = 0 AND received_time <= UNIX_TIMESTAMP() - 1 ORDER BY id");
  for (const { id } of rows as { id: number }[]) {
    const credit = mode === "grant" ? CREDIT : 0;
    if (credit > 0) {
      await conn.query("UPDATE host SET total_credit = total_credit + ? WHERE id = ?", [credit, HOST.id]);
      await conn.query("UPDATE user SET total_credit = total_credit + ? WHERE id = ?", [credit, HOST.user]);
      await conn.query("UPDATE team SET total_credit = total_credit + ? WHERE id = ?", [credit, HOST.team]);
    }
    await conn.query("UPDATE result SET validate_state = 1, server_state = 5, granted_credit = ? WHERE id = ?", [credit, id]);
    await conn.query("UPDATE workunit SET canonical_resultid = ?, canonical_credit = ? WHERE id = ?", [id, credit, id]);
    untouched.set(id, Date.now() + 1000 + Math.random() * 5000);
    process.stdout.write(JSON.stringify({ validated: id, credit }) + "\n");
  }
}

/** The transitioner and the file deleter: a later write of each validated result, which moves its mod_time. */
async function touch(all: boolean): Promise<void> {
  for (const [id, at] of untouched) {
    if (!all && at > Date.now()) continue;
    await conn.query("UPDATE result SET file_delete_state = 2 WHERE id = ?", [id]);
    untouched.delete(id);
  }
}

while (!quitting) {
  while (queue.length > 0) {
    const cmd = queue.shift()!;
    if (cmd === "quit") quitting = true;
    else if (cmd === "grant" || cmd === "no_credit" || cmd === "stop") mode = cmd;
    else throw new Error(`unknown command ${cmd}`);
    process.stdout.write(`ok ${cmd}\n`);
  }
  if (quitting) break;
  await schedule();
  if (mode !== "stop") await validate();
  await touch(false);
  await new Promise((r) => setTimeout(r, 50));
}
await touch(true);
await conn.end();
process.stdout.write("ok done\n");
