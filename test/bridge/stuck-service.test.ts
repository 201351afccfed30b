/**
 * A stuck or oversized answer (issue 48): the bridge, run as an admin runs it with --write-back,
 * against a stand-in service that never answers its pass request, or answers it without end.
 * Each attempt is cut off (--request-timeout, --max-answer-mib) and logged as a retry naming the
 * request; when the attempts run out it exits 75 naming the request and what the next run does,
 * BOINC's database is as the validator left it (nothing granted), and the next run, the
 * service well again, pays the same results.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { startBridgeCli } from "./bridge-cli";
import { smallBoincDb } from "./boinc-fixture";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";
import { type Fault } from "./stand-in-service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-stuck-service-admin-token";
const T = 1_700_000_000;
const PASS_BATCHES = /^POST .*\/pass-batches$/;
/** How api-client.ts names the one request of the three results (a pass a second). */
const REQUEST = `POST 3 passes at ${T}…${T + 2}`;
const available = suiteNeeds("a stuck or oversized answer", import.meta.url, "mariadb-server", mariadbAvailable());

describe.skipIf(!available)("a stuck or oversized answer", () => {
  const rig = bridgeRig(ADMIN, { standIn: true, work: "cobblestone-stuck-service-" });

  /** BOINC's credit: the results' sum, host 7's total, and the write-back's own rows. */
  const credit = async (name: string) => {
    const conn = await rig.maria.root(name);
    const [[r]] = (await conn.query(
      "SELECT SUM(granted_credit) AS s, (SELECT total_credit FROM host WHERE id = 7) AS h FROM result",
    )) as unknown as [{ s: number; h: number }[]];
    const [tables] = await conn.query("SHOW TABLES LIKE 'cobblestone_writeback'");
    const [[w]] = (tables as unknown[]).length
      ? ((await conn.query("SELECT COUNT(*) AS n FROM cobblestone_writeback")) as unknown as [{ n: number }[]])
      : [[{ n: 0 }]];
    await conn.end();
    return { results: Number(r!.s), host: Number(r!.h), written: Number(w!.n) };
  };

  /**
   * Three results as a --no_credit validator leaves them (granted 0, at T, T+1, T+2), the
   * bridge run with --write-back while the stand-in answers the pass request with `fault`,
   * then again with the service well.
   */
  async function faultyThenWell(name: string, fault: Fault, limits: string[]) {
    await smallBoincDb(rig.maria, name, T, [{ granted_credit: 0 }, { granted_credit: 0 }, { granted_credit: 0 }]);
    const writer = await writerDsn(rig.maria, name);
    const slug = name.replaceAll("_", "-");
    const token = await createProject(rig.server.base, ADMIN, slug);
    const stateFile = join(rig.work, `${slug}.state.json`);
    const args = ["--url", rig.standIn.base, "--project", slug, "--state", stateFile, "--write-back", "--switch-time", "0"];
    const env = { COBBLESTONE_TOKEN: token, BOINC_DB_URL: writer };

    rig.standIn.fault(PASS_BATCHES, fault);
    const faulted = rig.standIn.faulted;
    const failed = startBridgeCli([...args, "--request-attempts", "2", ...limits], env);
    const failedCode = await failed.exited;
    rig.standIn.clear();
    const after = { code: failedCode, stderr: failed.stderr(), faulted: rig.standIn.faulted - faulted, credit: await credit(name) };
    const state = await readFile(stateFile, "utf8").then(
      (text) => JSON.parse(text) as { cursor: { mod_time: number } },
      () => null,
    );

    const well = startBridgeCli(args, env);
    const wellCode = await well.exited;
    return { failed: after, state, well: { code: wellCode, stderr: well.stderr(), stdout: well.stdout(), credit: await credit(name) } };
  }

  const resume =
    "Run the bridge again to resume: the next run sends this request again from the saved cursor (nothing of it was written to BOINC's database).";

  it("a service that never answers: each attempt cut off at --request-timeout, a retry naming the request, exit 75, nothing written", async () => {
    const run = await faultyThenWell("never_answers", { kind: "hang" }, ["--request-timeout", "5"]);
    expect(run.failed.code, run.failed.stderr).toBe(75);
    expect(run.failed.faulted).toBe(2);
    expect(run.failed.stderr).toMatch(new RegExp(`^${REQUEST}: no answer within 5 s; retrying in [\\d.]+ s \\(attempt 2 of 2\\)$`, "m"));
    expect(run.failed.stderr).toContain(
      `bridge: the service did not answer after 2 attempts (${REQUEST}: no answer within 5 s); is it up? (The time limit: --request-timeout.) ${resume}`,
    );
    // As the validator left them: unpaid, the host's total unchanged, no write-back row; the cursor before them.
    expect(run.failed.credit).toEqual({ results: 0, host: 0, written: 0 });
    expect(run.state === null || run.state.cursor.mod_time < T).toBe(true);
    // The next run sends the same request and pays the three results, once.
    expect(run.well.code, run.well.stderr).toBe(0);
    expect(run.well.credit.written).toBe(3);
    expect(run.well.credit.results).toBeGreaterThan(0);
    expect(Math.abs(run.well.credit.host - run.well.credit.results)).toBeLessThan(1e-9 * run.well.credit.results);
  });

  it("an answer without end: cut off at --max-answer-mib, a retry naming the request, exit 75, nothing written", async () => {
    const run = await faultyThenWell("answers_without_end", { kind: "huge", bytes: 64 * 1024 * 1024 }, ["--max-answer-mib", "1"]);
    expect(run.failed.code, run.failed.stderr).toBe(75);
    expect(run.failed.faulted).toBe(2);
    expect(run.failed.stderr).toMatch(
      new RegExp(`^${REQUEST}: an answer over the 1 MiB the bridge reads; retrying in [\\d.]+ s \\(attempt 2 of 2\\)$`, "m"),
    );
    expect(run.failed.stderr).toContain(
      `bridge: no usable answer from the service after 2 attempts (${REQUEST}: an answer over the 1 MiB the bridge reads); ` +
        `is --url the Cobblestone service? (The cap: --max-answer-mib.) ${resume}`,
    );
    expect(run.failed.credit).toEqual({ results: 0, host: 0, written: 0 });
    expect(run.state === null || run.state.cursor.mod_time < T).toBe(true);
    expect(run.well.code, run.well.stderr).toBe(0);
    expect(run.well.credit.written).toBe(3);
    expect(Math.abs(run.well.credit.host - run.well.credit.results)).toBeLessThan(1e-9 * run.well.credit.results);
  });
});
