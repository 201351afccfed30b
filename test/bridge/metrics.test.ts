/**
 * What a monitor reads of a run, without a database: the status it keeps, its Prometheus text,
 * the HTTP server of --metrics-port and the atomic file of --metrics-file.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeError } from "../../bridge/shared/errors";
import { carriedStatus, labelValue, renderMetrics } from "../../bridge/telling/metrics";
import { MetricsFile, previousStatus } from "../../bridge/telling/metrics-file";
import { serveMetrics } from "../../bridge/telling/metrics-server";
import { BridgeStatus } from "../../bridge/telling/status";
import { BRIDGE_VERSION } from "../../bridge/shared/version";

describe("the bridge's metrics", () => {
  let work: string;
  beforeAll(async () => (work = await mkdtemp(join(tmpdir(), "cobblestone-metrics-"))));
  afterAll(() => rm(work, { recursive: true, force: true }));

  it("renders every number of the status with HELP, TYPE and the project's label", () => {
    let now = 1_000_000_000;
    const status = new BridgeStatus("my-project", () => now);
    status.following = true;
    status.setGuardHeld(true);
    status.attach({ posted: () => 120, written: () => 118, backlog: () => 2, writeBackRetries: () => 1, cursor: () => 999_990 });
    status.retried();
    status.retried();
    status.failed("unavailable");
    // Lags of three requests: at 0 s 7.5, at 30 s 3, at 70 s 2; at 70 s the first is over a minute old.
    status.lagged(7.5);
    now += 30_000;
    status.lagged(3);
    now += 40_000;
    status.lagged(2);
    status.polled();
    const text = renderMetrics(status.snapshot());
    const samples = text.split("\n").filter((l) => l && !l.startsWith("#"));
    const p = 'project="my-project"';
    expect(samples).toEqual([
      `cobblestone_bridge_build_info{${p},version="${BRIDGE_VERSION}"} 1`,
      `cobblestone_bridge_start_time_seconds{${p}} 1000000`,
      `cobblestone_bridge_last_poll_timestamp_seconds{${p}} 1000070`,
      `cobblestone_bridge_cursor_timestamp_seconds{${p}} 999990`,
      `cobblestone_bridge_guard_held{${p}} 1`,
      `cobblestone_bridge_lag_seconds{${p}} 2`,
      `cobblestone_bridge_lag_max_seconds{${p}} 3`,
      `cobblestone_bridge_backlog_results{${p}} 2`,
      `cobblestone_bridge_results_posted_total{${p}} 120`,
      `cobblestone_bridge_results_written_total{${p}} 118`,
      `cobblestone_bridge_retries_total{${p},kind="service"} 2`,
      `cobblestone_bridge_retries_total{${p},kind="write_back"} 1`,
      `cobblestone_bridge_errors_total{${p},kind="unavailable"} 1`,
      `cobblestone_bridge_errors_total{${p},kind="fatal"} 0`,
      `cobblestone_bridge_failed{${p}} 0`,
    ]);
    // One HELP and one TYPE line before each metric's samples.
    const names = [...new Set(samples.map((s) => s.slice(0, s.indexOf("{"))))];
    for (const name of names) {
      const help = text.indexOf(`# HELP ${name} `);
      const type = text.indexOf(`# TYPE ${name} ${name.endsWith("_total") ? "counter" : "gauge"}\n`);
      expect(help, name).toBeGreaterThanOrEqual(0);
      expect(type, name).toBeGreaterThan(help);
      expect(text.indexOf(`${name}{`), name).toBeGreaterThan(type);
    }
    // A minute without a written request: the largest lag of the last minute is 0; the last stays.
    now += 61_000;
    const idle = status.snapshot();
    expect([idle.lagMaxMinute, idle.lagLast]).toEqual([0, 2]);
  });

  it("tells how the last process ended, and keeps a failure and the last poll across processes until a round goes through", () => {
    let now = 2_000_000_000;
    const p = 'project="p"';
    const sample = (text: string, name: string) => new RegExp(`^cobblestone_bridge_${name}\\{${p}\\} (\\S+)$`, "m").exec(text)?.[1];
    // A process that polled once, then stopped on a 500 of the service (exit 75).
    const first = new BridgeStatus("p", () => now);
    now += 5_000;
    first.polled();
    now += 10_000;
    first.failed("fatal");
    first.exited(75);
    const left = renderMetrics(first.snapshot());
    expect(sample(left, "last_exit_code")).toBe("75");
    expect(sample(left, "last_exit_timestamp_seconds")).toBe("2000015");
    expect(sample(left, "failed")).toBe("1");
    expect(left).toContain(`cobblestone_bridge_errors_total{${p},kind="fatal"} 1\n`);
    // systemd's restart reads it back: its own start time, the last poll and the failure of the one before.
    now += 30_000;
    const second = new BridgeStatus("p", () => now);
    second.carryOver(carriedStatus(left, "p")!);
    const restarted = renderMetrics(second.snapshot());
    expect(sample(restarted, "start_time_seconds")).toBe("2000045");
    expect(sample(restarted, "last_poll_timestamp_seconds")).toBe("2000005");
    expect(sample(restarted, "last_exit_code")).toBe("75");
    expect(sample(restarted, "failed")).toBe("1");
    expect(restarted).toContain(`cobblestone_bridge_errors_total{${p},kind="fatal"} 0\n`);
    // Its first round clears the failure; the last exit stays, as history.
    now += 2_000;
    second.polled();
    const polled = renderMetrics(second.snapshot());
    expect([sample(polled, "failed"), sample(polled, "last_exit_code"), sample(polled, "last_poll_timestamp_seconds")]).toEqual([
      "0",
      "75",
      "2000047",
    ]);
    // Stopped by SIGTERM: exit 0, no failure; interrupted (130): no failure either.
    second.exited(0);
    expect(carriedStatus(renderMetrics(second.snapshot()), "p")).toEqual({
      lastPoll: 2000047,
      lastExit: { code: 0, at: 2000047 },
      failed: false,
    });
    // Another project's file, or no metrics at all, carries nothing.
    expect(carriedStatus(left, "q")).toBeNull();
    expect(carriedStatus("", "p")).toBeNull();
    // A process that failed before any round, after one that had failed too: still failing, the last poll still the old one.
    const third = new BridgeStatus("p", () => now);
    third.carryOver(carriedStatus(left, "p")!);
    third.exited(2);
    expect(carriedStatus(renderMetrics(third.snapshot()), "p")).toEqual({
      lastPoll: 2000005,
      lastExit: { code: 2, at: 2000047 },
      failed: true,
    });
  });

  it("reads back what the last process left in the file, and nothing from a file that is not there", async () => {
    const path = join(work, "previous.prom");
    const status = new BridgeStatus("p", () => 1_000);
    status.exited(76);
    const file = new MetricsFile(
      path,
      () => renderMetrics(status.snapshot()),
      () => undefined,
    );
    await file.start();
    await file.close();
    expect(await previousStatus(path, "p")).toEqual({ lastPoll: 1, lastExit: { code: 76, at: 1 }, failed: true });
    expect(await previousStatus(join(work, "none.prom"), "p")).toBeNull();
    await rm(path);
  });

  it("leaves the lag out of a backfill, starts the last poll at the start, and escapes label values", () => {
    const status = new BridgeStatus('a"b\\c', () => 5_000);
    const text = renderMetrics(status.snapshot());
    expect(text).not.toContain("lag");
    // Nothing known of a cursor or of a process's end yet: no sample, rather than a 0 that means something.
    expect(text).not.toContain("cursor_timestamp_seconds");
    expect(text).not.toContain("last_exit");
    expect(text).toContain('cobblestone_bridge_last_poll_timestamp_seconds{project="a\\"b\\\\c"} 5\n');
    expect(text).toContain('cobblestone_bridge_guard_held{project="a\\"b\\\\c"} 0\n');
    expect(labelValue("x\ny")).toBe("x\\ny");
  });

  it("answers GET /metrics on its port, 404 elsewhere, 405 to a POST, and names a port in use", async () => {
    let scrapes = 0;
    const server = await serveMetrics("127.0.0.1", 0, () => `scrape ${++scrapes}\n`);
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const first = await fetch(`${base}/metrics`);
      expect(first.status).toBe(200);
      expect(first.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      expect(await first.text()).toBe("scrape 1\n");
      expect(await (await fetch(`${base}/metrics`)).text()).toBe("scrape 2\n");
      expect((await fetch(`${base}/`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: "POST" })).status).toBe(405);
      const taken = await serveMetrics("127.0.0.1", server.port, () => "").catch((e) => e);
      expect(taken).toBeInstanceOf(BridgeError);
      expect(taken.message).toBe(
        `--metrics-port: cannot listen on 127.0.0.1:${server.port}: the port is in use (another bridge? give each its own --metrics-port)`,
      );
    } finally {
      await server.close();
    }
  });

  it("writes the file whole each time (a temp file renamed over it), and tells a path it cannot write at once", async () => {
    let n = 0;
    const path = join(work, "bridge.prom");
    const file = new MetricsFile(
      path,
      () => `value ${++n}\n`,
      () => undefined,
    );
    await file.start();
    expect(await readFile(path, "utf8")).toBe("value 1\n");
    file.write();
    file.write();
    await file.close();
    // Asked three times (twice, then close) while none ran: one write, of the status as of when it ran.
    expect(await readFile(path, "utf8")).toBe("value 2\n");
    expect(await readdir(work)).toEqual(["bridge.prom"]);
    const nowhere = new MetricsFile(
      join(work, "no", "such", "dir.prom"),
      () => "",
      () => undefined,
    );
    const e = await nowhere.start().catch((x) => x);
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.message).toMatch(/^--metrics-file: cannot write .*dir\.prom: ENOENT/);
  });
});
