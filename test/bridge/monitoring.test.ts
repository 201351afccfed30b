/**
 * An unattended bridge as a monitor sees it: `--follow --write-back --log-format json
 * --metrics-port P --metrics-file F` as a child process while this test validates results into
 * its database. /metrics moves while it follows (results written grows, the last poll is
 * recent, the guard is held), ends at the test's own count, the file says the same, every
 * stderr line is a JSON event with the documented fields and no secret, and SIGTERM ends it 0.
 */
import { readFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { smallBoincDb } from "./boinc-fixture";
import { startBridgeCli, validateNoCredit } from "./bridge-cli";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";
import { WRITER, writerDsn } from "./write-back-check";

const ADMIN = "bridge-monitoring-admin-token";
const available = suiteNeeds("the bridge's logs and metrics", import.meta.url, "mariadb-server", mariadbAvailable());
const INSERT_MS = 20_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** Samples of a Prometheus text exposition, by `name{labels}`; every other line must be a HELP or TYPE line. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.trimEnd().split("\n")) {
    if (/^# (HELP|TYPE) cobblestone_bridge_\w+ /.test(line)) continue;
    const m = /^(cobblestone_bridge_\w+\{[^}]*\}) (\S+)$/.exec(line);
    expect(m, line).not.toBeNull();
    out.set(m![1]!, Number(m![2]));
  }
  return out;
}

describe.skipIf(!available)("the bridge's logs and metrics", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-monitoring-" });

  it("follows with JSON events on stderr and metrics a monitor can read, then stops cleanly on SIGTERM", { timeout: 300_000 }, async () => {
    const start = Math.floor(Date.now() / 1000);
    await smallBoincDb(rig.maria, "watched", start, []);
    const dsn = await writerDsn(rig.maria, "watched");
    const token = await createProject(rig.server.base, ADMIN, "watched");
    const port = await freePort();
    const file = join(rig.work, "bridge.prom");
    const bridge = startBridgeCli(
      ["--url", rig.server.base, "--project", "watched", "--state", join(rig.work, "watched.json")].concat(
        ["--write-back", "--switch-time", String(start - 60), "--follow", "--poll-every", "1"],
        ["--log-format", "json", "--metrics-port", String(port), "--metrics-file", file],
      ),
      { COBBLESTONE_TOKEN: token, BOINC_DB_URL: dsn },
    );
    const { child } = bridge;
    const scrape = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      return samples(await response.text());
    };
    const p = 'project="watched"';
    const value = (m: Map<string, number>, name: string, labels = "") => m.get(`cobblestone_bridge_${name}{${p}${labels}}`);

    // It listens before the run starts, and says 0 until the run holds its database lock (the
    // start, its database checks included, takes a while on a loaded machine).
    let first: Map<string, number> | null = null;
    for (let i = 0; i < 600 && child.exitCode === null; i++) {
      first = await scrape().catch(() => null);
      if (first && value(first, "guard_held") === 1) break;
      await sleep(200);
    }
    expect(first, bridge.stderr()).not.toBeNull();

    // The validator: a workunit and its valid result every half second, granted nothing (--no_credit).
    const conn = await rig.maria.root("watched");
    let inserted = 0;
    let during: Map<string, number> | null = null;
    const until = Date.now() + INSERT_MS;
    while (Date.now() < until) {
      await validateNoCredit(conn, ++inserted);
      if (!during && Date.now() > until - INSERT_MS / 2) during = await scrape();
      await sleep(500);
    }
    const count = async () => Number(((await conn.query("SELECT COUNT(*) AS n FROM cobblestone_writeback"))[0] as { n: number }[])[0]!.n);
    for (let i = 0; i < 300 && (await count()) < inserted; i++) await sleep(100);
    // The counter follows the commit: let one more scrape catch up.
    let last = await scrape();
    for (let i = 0; i < 100 && value(last, "results_written_total") !== inserted; i++) {
      await sleep(100);
      last = await scrape();
    }
    await conn.end();

    // While following: the guard held, the numbers moving, the last poll recent (polls are 1 s apart).
    for (const m of [first!, during!, last]) expect(value(m, "guard_held")).toBe(1);
    expect(value(last, "results_written_total")!).toBeGreaterThan(value(during!, "results_written_total")!);
    expect(value(last, "last_poll_timestamp_seconds")!).toBeGreaterThan(value(during!, "last_poll_timestamp_seconds")!);
    expect(Date.now() / 1000 - value(last, "last_poll_timestamp_seconds")!).toBeLessThan(30);
    expect(value(last, "start_time_seconds")).toBe(value(first!, "start_time_seconds"));
    // At the end, by the test's own count: each result posted once, written once, none waiting.
    expect(value(last, "results_posted_total")).toBe(inserted);
    expect(value(last, "results_written_total")).toBe(inserted);
    expect(value(last, "backlog_results")).toBe(0);
    expect(value(last, "errors_total", ',kind="fatal"')).toBe(0);
    // The write-back's own count (at the first poll): nothing validated over 5 minutes ago is unpaid.
    expect(value(last, "unpaid_results")).toBe(0);
    expect(value(last, "unpaid_counted_timestamp_seconds")!).toBeGreaterThanOrEqual(value(first!, "start_time_seconds")!);
    expect(value(last, "lag_max_seconds")).toBeGreaterThanOrEqual(0);
    expect(value(last, "lag_seconds")).toBeGreaterThanOrEqual(0);
    // The textfile collector's file: the same metrics.
    expect([...samples(await readFile(file, "utf8")).keys()]).toEqual([...last.keys()]);

    expect(child.exitCode).toBeNull();
    child.kill("SIGTERM");
    expect(await bridge.exited, bridge.stderr()).toBe(0);

    // Every stderr line one JSON event: time, level, event, msg (and fields); never a secret.
    const events = bridge
      .stderr()
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const e of events) {
      expect(typeof e.time === "string" && new Date(e.time).toISOString() === e.time, JSON.stringify(e)).toBe(true);
      expect(["info", "warn", "error"]).toContain(e.level);
      expect(e.event).toMatch(/^[a-z_]+$/);
      expect(typeof e.msg).toBe("string");
    }
    expect(bridge.stderr()).not.toContain(token);
    expect(bridge.stderr()).not.toContain(WRITER.password);
    const named = (event: string) => events.filter((e) => e.event === event);
    expect(named("start")).toEqual([
      expect.objectContaining({ project: "watched", follow: true, write_back: true, database: expect.stringContaining(":***@") }),
    ]);
    // The requests' results add up to what was validated, each result once.
    const requests = named("request");
    expect(requests.reduce((n, e) => n + (e.results as number), 0)).toBe(inserted);
    expect(requests.reduce((n, e) => n + (e.written as number), 0)).toBe(inserted);
    expect(named("signal")).toEqual([expect.objectContaining({ signal: "SIGTERM" })]);
    expect(events.at(-1)).toMatchObject({ event: "stop", level: "info", results: inserted, written: inserted, interrupted: true });
    expect(named("error")).toEqual([]);
    // The summary stays on stdout.
    expect(bridge.stdout()).toMatch(new RegExp(`wrote back ${inserted} results`));
  });
});
