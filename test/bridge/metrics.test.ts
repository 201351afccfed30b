/**
 * What a monitor reads of a run, without a database: the status it keeps, its Prometheus text,
 * the HTTP server of --metrics-port and the atomic file of --metrics-file.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeError } from "../../bridge/errors";
import { labelValue, renderMetrics } from "../../bridge/metrics";
import { MetricsFile } from "../../bridge/metrics-file";
import { serveMetrics } from "../../bridge/metrics-server";
import { BridgeStatus } from "../../bridge/status";

describe("the bridge's metrics", () => {
  let work: string;
  beforeAll(async () => (work = await mkdtemp(join(tmpdir(), "cobblestone-metrics-"))));
  afterAll(() => rm(work, { recursive: true, force: true }));

  it("renders every number of the status with HELP, TYPE and the project's label", () => {
    let now = 1_000_000_000;
    const status = new BridgeStatus("my-project", () => now);
    status.following = true;
    status.setGuardHeld(true);
    status.attach({ posted: () => 120, written: () => 118, backlog: () => 2, writeBackRetries: () => 1 });
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
      `cobblestone_bridge_start_time_seconds{${p}} 1000000`,
      `cobblestone_bridge_last_poll_timestamp_seconds{${p}} 1000070`,
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

  it("leaves the lag out of a backfill, starts the last poll at the start, and escapes label values", () => {
    const status = new BridgeStatus('a"b\\c', () => 5_000);
    const text = renderMetrics(status.snapshot());
    expect(text).not.toContain("lag");
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
