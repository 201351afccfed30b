/**
 * Every failure that needs a human fires a documented alert (docs/bridge.md, "Exit status" and
 * "Monitoring"): the real command line, run as systemd runs it (`--write-back`, a JSON log,
 * `--metrics-port` and `--metrics-file`), driven into each kind of failure through a stand-in
 * service and MariaDB: a refusal (a validator still grants) exits 2, the service failing (500)
 * exits 75, a lock another run holds exits 76. Each time the test reads the exit status, the
 * `error` event, and what each alert rule reads: the file the process left (last exit, failed,
 * fatal errors), and, from the process started next (its first request held, so that it has not
 * polled yet), /metrics and the file alike: its own start time (a restart loop counts them), the
 * last poll and the failure of the processes before it, until its first round goes through.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { lockState } from "../../bridge/running/lock";
import { runLockName } from "../../bridge/running/run-guard";
import { BRIDGE_VERSION } from "../../bridge/shared/version";
import { freePort } from "../browser/wrangler-dev";
import { type BridgeCli, startBridgeCli } from "./bridge-cli";
import { smallBoincDb } from "./boinc-fixture";
import { sqlTime } from "./load-trace";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-exit-status-admin-token";
const T = 1_700_000_000;
/** The switch point: before the results' reports (T - 100 in smallBoincDb). */
const SWITCH = T - 200;
const CHECK = /^GET \/v1\/projects\/[^/]+\/rate-limit$/;
const PASS_BATCHES = /^POST \/v1\/projects\/[^/]+\/pass-batches$/;
const available = suiteNeeds("the bridge's exit statuses and alerts", import.meta.url, "mariadb-server", mariadbAvailable());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The project's samples of a metrics text, by name without the prefix and the labels after the project's (`errors_total,kind="fatal"`). */
function samples(text: string, slug: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = new RegExp(`^cobblestone_bridge_(\\w+)\\{project="${slug}"(?:,([^}]*))?\\} (\\S+)$`).exec(line);
    if (m) out.set(m[2] ? `${m[1]},${m[2]}` : m[1]!, Number(m[3]));
  }
  return out;
}

/** Asks `get` every 100 ms until it gives something (a scrape that answers, a condition met). */
async function until<T>(what: string, get: () => Promise<T | null>, tries = 600): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await get().catch(() => null);
    if (v !== null) return v;
    await sleep(100);
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe.skipIf(!available)("the bridge's exit statuses and alerts", () => {
  const rig = bridgeRig(ADMIN, { standIn: true, work: "cobblestone-exit-status-" });

  const stateFile = (slug: string) => join(rig.work, `${slug}.state.json`);
  const metricsFile = (slug: string) => join(rig.work, `cobblestone-bridge-${slug}.prom`);

  /** A project whose database holds three valid results (`granted`: BOINC's 1 credit each, else 0 as --no_credit leaves them). */
  async function project(slug: string, granted: boolean) {
    const name = slug.replace(/-/g, "_");
    await smallBoincDb(
      rig.maria,
      name,
      T,
      [{}, {}, {}].map(() => (granted ? {} : { granted_credit: 0 })),
    );
    const env = { COBBLESTONE_TOKEN: await createProject(rig.server.base, ADMIN, slug), BOINC_DB_URL: await writerDsn(rig.maria, name) };
    return { name, slug, env, port: await freePort() };
  }
  type Project = Awaited<ReturnType<typeof project>>;

  /** One bridge process as the unit starts it, through the stand-in service. */
  function start(p: Project, extra: string[] = []): BridgeCli {
    return startBridgeCli(
      [
        "--url",
        rig.standIn.base,
        "--project",
        p.slug,
        "--state",
        stateFile(p.slug),
        "--write-back",
        "--switch-time",
        String(SWITCH),
      ].concat(["--log-format", "json", "--metrics-port", String(p.port), "--metrics-file", metricsFile(p.slug)], extra),
      p.env,
    );
  }

  /** The JSON log's `error` event (the last line on stderr). */
  const errorEvent = (run: BridgeCli) => {
    const events = run
      .stderr()
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.filter((e) => e.event === "error")).toHaveLength(1);
    return events.at(-1)!;
  };
  const fileMetrics = async (p: Project) => samples(await readFile(metricsFile(p.slug), "utf8"), p.slug);
  const scrape = async (p: Project) => samples(await (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text(), p.slug);

  /**
   * The next process, as systemd (or an admin) starts it, with its first request (the check of
   * the project) held: what it serves before any round, on /metrics and in the file alike. Then
   * let go, it follows; once its first round went through, it is stopped with SIGTERM (exit 0).
   */
  async function nextProcess(p: Project, left: Map<string, number>, written: number) {
    let letGo = () => {};
    rig.standIn.fault(CHECK, { kind: "hold", until: new Promise<void>((r) => (letGo = r)) }, 1);
    const next = start(p, ["--follow", "--poll-every", "1"]);
    const before = await until("its /metrics", () => scrape(p));
    // Its first write of the file follows the port's opening.
    const file = await until("its file", async () => {
      const m = await fileMetrics(p);
      return m.get("start_time_seconds") === before.get("start_time_seconds") ? m : null;
    });
    for (const m of [before, file]) {
      // The failure and the last poll of the process before, its own start.
      expect(m.get("failed"), next.stderr()).toBe(left.get("failed"));
      expect(m.get("last_exit_code")).toBe(left.get("last_exit_code"));
      expect(m.get("last_exit_timestamp_seconds")).toBe(left.get("last_exit_timestamp_seconds"));
      expect(m.get("last_poll_timestamp_seconds")).toBe(left.get("last_poll_timestamp_seconds"));
      expect(m.get("start_time_seconds")).toBeGreaterThan(left.get("start_time_seconds")!);
      expect(m.get(`build_info,version="${BRIDGE_VERSION}"`)).toBe(1);
      expect(m.get('errors_total,kind="fatal"')).toBe(0);
    }
    expect([...file.keys()]).toEqual([...before.keys()]);
    letGo();
    const after = await until(
      "its first round",
      async () => {
        const m = await scrape(p);
        return m.get("failed") === 0 ? m : null;
      },
      1500,
    );
    // The last exit stays as history until this process's own; the last poll is its own now.
    expect(after.get("last_exit_code")).toBe(left.get("last_exit_code"));
    expect(after.get("last_poll_timestamp_seconds")).toBeGreaterThan(after.get("start_time_seconds")!);
    expect(after.get("results_written_total")).toBe(written);
    next.child.kill("SIGTERM");
    expect(await next.exited, next.stderr()).toBe(0);
    const end = await fileMetrics(p);
    expect([end.get("last_exit_code"), end.get("failed"), end.get('errors_total,kind="fatal"')]).toEqual([0, 0, 0]);
    return end;
  }

  it(
    "a refusal (a validator still grants): exit 2, not restarted; the refusal alert reads it in the file, and on /metrics from the next process until it polls",
    { timeout: 300_000 },
    async () => {
      const p = await project("refused", true);
      rig.standIn.clear();
      const refused = start(p);
      expect(await refused.exited, refused.stderr()).toBe(2);
      const error = errorEvent(refused);
      expect(error).toMatchObject({ level: "error", event: "error", kind: "refusal", exit: 2, transient: false });
      expect(error.msg).toMatch(/^bridge: --write-back: results validated after the switch point .* a validator still grants/);
      // What the refusal alert (failed 1, last exit 2) and the stopped alert (a fatal error) read.
      const left = await fileMetrics(p);
      expect(left.get("last_exit_code")).toBe(2);
      expect(left.get("failed")).toBe(1);
      expect(left.get('errors_total,kind="fatal"')).toBe(1);
      expect(left.get("guard_held")).toBe(0);
      expect(left.get("last_exit_timestamp_seconds")).toBeGreaterThan(left.get("start_time_seconds")!);
      expect(Date.now() / 1000 - left.get("last_exit_timestamp_seconds")!).toBeLessThan(120);
      // Gone, and systemd leaves it (RestartPreventExitStatus=2): its port answers no more (Prometheus' `up` 0).
      await expect(fetch(`http://127.0.0.1:${p.port}/metrics`)).rejects.toThrow();

      // The admin restarts the validators with --no_credit (here: the credit they gave taken back), then the bridge.
      const conn = await rig.maria.root(p.name);
      await conn.query("UPDATE result SET granted_credit = 0, mod_time = mod_time");
      await conn.end();
      const end = await nextProcess(p, left, 3);
      expect(end.get("cursor_timestamp_seconds")).toBe(T + 2);
    },
  );

  it(
    "the service failing (500), at the start and mid-run: exit 75, restarted; each start seen, the last poll and the failure carried until a round goes through",
    { timeout: 300_000 },
    async () => {
      const p = await project("flaky", false);
      // A sound run first, for a last poll that the failing processes carry.
      rig.standIn.clear();
      const sound = start(p);
      expect(await sound.exited, sound.stderr()).toBe(0);
      const first = await fileMetrics(p);
      expect([first.get("last_exit_code"), first.get("failed"), first.get("results_written_total")]).toEqual([0, 0, 3]);
      expect(first.get("cursor_timestamp_seconds")).toBe(T + 2);
      const lastPoll = first.get("last_poll_timestamp_seconds")!;
      // A result validated since, for the failing runs to post.
      const conn = await rig.maria.root(p.name);
      await conn.query(
        "INSERT INTO workunit (id, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults) VALUES (4, 1, 'wu4', 1e13, 1e14, 1)",
      );
      await conn.query(
        `INSERT INTO result SET id = 4, workunitid = 4, outcome = 1, hostid = 7, userid = 3, teamid = 5, sent_time = ?, received_time = ?,
           cpu_time = 900, validate_state = 1, granted_credit = 0, elapsed_time = 1000, flops_estimate = 1e10, app_version_id = 1, mod_time = ?`,
        [T - 5000, T - 100, sqlTime(T + 10)],
      );
      await conn.end();

      const starts = [first.get("start_time_seconds")];
      let left = first;
      const failing = async (message: RegExp) => {
        const run = start(p);
        expect(await run.exited, run.stderr()).toBe(75);
        const error = errorEvent(run);
        expect(error).toMatchObject({ kind: "unavailable", exit: 75, transient: false });
        expect(error.msg).toMatch(message);
        left = await fileMetrics(p);
        expect([left.get("last_exit_code"), left.get("failed"), left.get('errors_total,kind="fatal"')]).toEqual([75, 1, 1]);
        // What the stall alert reads: no round has gone through since the sound run, whatever the restarts.
        expect(left.get("last_poll_timestamp_seconds")).toBe(lastPoll);
        starts.push(left.get("start_time_seconds"));
      };
      // The service answers 500 to the check of the project at the start (the soak's "checking project 'soak': internal").
      rig.standIn.fault(/./, { kind: "status", status: 500 });
      await failing(/^bridge: checking project 'flaky': internal: the stand-in answered 500$/);
      // And to the passes: a 500 mid-run stops it too (the same request would get it again); a restart is the retry.
      rig.standIn.clear();
      rig.standIn.fault(PASS_BATCHES, { kind: "status", status: 500 });
      await failing(/^bridge: POST 1 passes at 1700000010: internal: the stand-in answered 500$/);
      expect(left.get("cursor_timestamp_seconds")).toBe(T + 2);
      // What the restart-loop alert counts: a start time of each process.
      expect(new Set(starts).size).toBe(3);

      rig.standIn.clear();
      const end = await nextProcess(p, left, 1);
      expect(end.get("cursor_timestamp_seconds")).toBe(T + 10);
    },
  );

  it(
    "another run holding the database's lock, or the state file's: exit 76, told in the file, a start each time",
    { timeout: 300_000 },
    async () => {
      const p = await project("locked", false);
      rig.standIn.clear();
      const root = await rig.maria.root();
      const [got] = await root.query("SELECT GET_LOCK(?, 0) AS got", [runLockName(p.name, p.slug)]);
      expect(Number((got as { got: number }[])[0]!.got)).toBe(1);
      const starts: number[] = [];
      const locked = async (message: RegExp) => {
        const run = start(p);
        expect(await run.exited, run.stderr()).toBe(76);
        const error = errorEvent(run);
        expect(error).toMatchObject({ kind: "locked", exit: 76, transient: false });
        expect(error.msg).toMatch(message);
        const left = await fileMetrics(p);
        expect([left.get("last_exit_code"), left.get("failed"), left.get("guard_held")]).toEqual([76, 1, 0]);
        starts.push(left.get("start_time_seconds")!);
      };
      await locked(/^bridge: another bridge run is working on project 'locked' of database 'locked'/);
      await root.query("SELECT RELEASE_LOCK(?)", [runLockName(p.name, p.slug)]);
      await root.end();
      const held = await lockState(stateFile(p.slug));
      try {
        await locked(new RegExp(`^bridge: another bridge run \\(pid ${process.pid}\\) is using `));
      } finally {
        await held.release();
      }
      expect(new Set(starts).size).toBe(2);
    },
  );
});
