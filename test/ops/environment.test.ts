/**
 * One typed environment (issue 43): the variables are parsed once, by src/env-vars.ts's
 * schema, with the bindings nothing works without. A bad one is refused by name and reason
 * (a secret's value never shown): the Worker answers every request 500 `misconfigured` in the
 * error shape and writes nothing, logs the problems once, and a cron run fails with the same
 * words. A good one reaches the code that uses it (here, the retention cron).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EnvError, type WorkerEnv, parseEnv } from "../../src/env";
import { parseSettings } from "../../src/env-vars";
import { runScheduled } from "../../src/jobs/cron";
import worker from "../../src/index";
import { DEFAULT_AM_RPC_RETENTION_DAYS, DEFAULT_AUDIT_RETENTION_DAYS } from "../../src/config";
import { ADMIN_TOKEN, createProject } from "../support/api";
import { expectError } from "../support/api-helpers";
import { captureLogs } from "../support/logs";
import { dbState } from "../security/db-state";
import { callWith } from "../security/support";

const DAY_MS = 86_400_000;
const RETENTION_CRON = "50 * * * *";

/** The problems parseEnv names for the test environment with these changes. */
function problemsWith(overrides: Record<string, unknown>): readonly string[] {
  try {
    parseEnv({ ...env, ...overrides } as WorkerEnv);
  } catch (e) {
    if (e instanceof EnvError) return e.problems;
    throw e;
  }
  return [];
}

describe("the variables, parsed once", () => {
  it("names each bad variable and why", () => {
    expect(problemsWith({ AUDIT_RETENTION_DAYS: "abc" })).toEqual(['AUDIT_RETENTION_DAYS: expected a whole number of days ≥ 1, got "abc"']);
    for (const bad of ["0", "-3", "1.5", "", "30 days", "1e3", true]) {
      expect(problemsWith({ AM_RPC_RETENTION_DAYS: bad })).toEqual([
        `AM_RPC_RETENTION_DAYS: expected a whole number of days ≥ 1, got ${JSON.stringify(bad)}`,
      ]);
    }
    expect(problemsWith({ RATE_LIMIT_PER_PERIOD: "many", AUDIT_RETENTION_DAYS: "0" })).toEqual([
      'RATE_LIMIT_PER_PERIOD: expected a whole number of requests ≥ 1, got "many"',
      'AUDIT_RETENTION_DAYS: expected a whole number of days ≥ 1, got "0"',
    ]);
  });

  it("never repeats the admin token's value", () => {
    const secret = "cba_secret value";
    const [problem] = problemsWith({ ADMIN_TOKEN: secret });
    expect(problem).toMatch(/^ADMIN_TOKEN: contains whitespace/);
    expect(problem).not.toContain("cba_secret");
    expect(problemsWith({ ADMIN_TOKEN: "" })).toEqual([expect.stringMatching(/^ADMIN_TOKEN: set but empty/)]);
  });

  it("names a missing binding nothing works without", () => {
    expect(problemsWith({ DB: undefined })).toEqual([expect.stringMatching(/^DB: no D1 database bound/)]);
    expect(problemsWith({ KV: undefined })).toEqual([expect.stringMatching(/^KV: no KV namespace bound/)]);
    // The optional ones have fallbacks: no DB_LARGE, no rate limiter.
    expect(problemsWith({ DB_LARGE: undefined, RATE_LIMITER: undefined })).toEqual([]);
  });

  it("types what parses: numbers (a string, or JSON from wrangler.jsonc vars), the defaults when unset", () => {
    const parsed = parseSettings({ AUDIT_RETENTION_DAYS: " 30 ", AM_RPC_RETENTION_DAYS: 7, RATE_LIMIT_PER_PERIOD: "100" });
    expect(parsed).toEqual({
      ok: true,
      value: { ADMIN_TOKEN: null, AUDIT_RETENTION_DAYS: 30, AM_RPC_RETENTION_DAYS: 7, RATE_LIMIT_PER_PERIOD: 100 },
    });
    expect(parseSettings({})).toEqual({
      ok: true,
      value: {
        ADMIN_TOKEN: null,
        RATE_LIMIT_PER_PERIOD: null,
        AUDIT_RETENTION_DAYS: DEFAULT_AUDIT_RETENTION_DAYS,
        AM_RPC_RETENTION_DAYS: DEFAULT_AM_RPC_RETENTION_DAYS,
      },
    });
  });

  it("parses an environment once: the same settings object, the same refusal", () => {
    const good = { ...env } as WorkerEnv;
    expect(parseEnv(good)).toBe(parseEnv(good));
    expect(parseEnv(good).ADMIN_TOKEN).toBe(ADMIN_TOKEN);
    const bad = { ...env, AUDIT_RETENTION_DAYS: "abc" } as WorkerEnv;
    let first: unknown;
    let second: unknown;
    try {
      parseEnv(bad);
    } catch (e) {
      first = e;
    }
    try {
      parseEnv(bad);
    } catch (e) {
      second = e;
    }
    expect(first).toBeInstanceOf(EnvError);
    expect(second).toBe(first);
  });
});

describe("a deployment with a bad variable", () => {
  it("answers 500 misconfigured naming it, writes nothing, and logs the problems", async () => {
    const bad = { AUDIT_RETENTION_DAYS: "abc", ADMIN_TOKEN: "two words" };
    const before = await dbState();
    const { lines } = await captureLogs(async () => {
      const health = await callWith(bad, "GET", "/health");
      const error = expectError(health, 500, "misconfigured");
      expect(error.message).toContain('AUDIT_RETENTION_DAYS: expected a whole number of days ≥ 1, got "abc"');
      expect(error.issues!.map((i) => i.path)).toEqual(["ADMIN_TOKEN", "AUDIT_RETENTION_DAYS"]);
      expect(JSON.stringify(health.body)).not.toContain("two words");
      // An admin write changes nothing.
      const create = await callWith(bad, "POST", "/v1/projects", { token: "two words", body: { slug: "never", name: "Never" } });
      expectError(create, 500, "misconfigured");
    });
    expect(await dbState()).toEqual(before);

    // callWith hands each request a copy of the environment of its own: a new environment, so
    // one report each (an isolate's one environment reports once: the next test).
    const invalid = lines.filter((l) => l.event === "config_invalid");
    expect(invalid).toHaveLength(2);
    expect(invalid[0]).toMatchObject({ level: "error", console: "error" });
    expect(invalid[0]!.problems).toEqual([
      expect.stringMatching(/^ADMIN_TOKEN: contains whitespace/),
      'AUDIT_RETENTION_DAYS: expected a whole number of days ≥ 1, got "abc"',
    ]);
    const requests = lines.filter((l) => l.event === "request");
    expect(requests.map((l) => [l.route, l.status, l.error_code])).toEqual([
      ["/health", 500, "misconfigured"],
      ["/v1/projects", 500, "misconfigured"],
    ]);
    expect(lines.map((l) => JSON.stringify(l)).join("\n")).not.toContain("two words");
  });

  it("logs its problems once per environment, however many requests it answers", async () => {
    const bad = { ...env, RATE_LIMIT_PER_PERIOD: "lots" } as WorkerEnv;
    const { lines } = await captureLogs(async () => {
      for (let i = 0; i < 3; i++) {
        const ctx = createExecutionContext();
        const res = await worker.fetch(new Request("http://cobblestone.test/health"), bad, ctx);
        await waitOnExecutionContext(ctx);
        expect(res.status).toBe(500);
      }
    });
    expect(lines.filter((l) => l.event === "config_invalid")).toHaveLength(1);
    expect(lines.filter((l) => l.event === "request" && l.error_code === "misconfigured")).toHaveLength(3);
  });

  it("fails a cron run with the same words, running no job", async () => {
    const bad = { ...env, AM_RPC_RETENTION_DAYS: "ninety" } as WorkerEnv;
    const { lines } = await captureLogs(() => expect(runScheduled("* * * * *", bad, Date.now())).rejects.toThrow(EnvError));
    expect(lines).toEqual([
      expect.objectContaining({
        event: "cron",
        level: "error",
        cron: "* * * * *",
        error_code: "misconfigured",
        problems: ['AM_RPC_RETENTION_DAYS: expected a whole number of days ≥ 1, got "ninety"'],
        jobs: [],
      }),
    ]);
  });
});

describe("a good variable reaches the code that reads it", () => {
  it("AUDIT_RETENTION_DAYS sets the retention cron's audit window", async () => {
    await createProject("audited");
    const auditRows = async () => (await env.DB.prepare("SELECT count(*) AS n FROM audit_log").first<number>("n"))!;
    const rows = await auditRows();
    expect(rows).toBeGreaterThan(0);
    // Two days on: the default window (365 days) keeps the rows, a window of 1 day drops them.
    const later = Date.now() + 2 * DAY_MS;
    await captureLogs(() => runScheduled(RETENTION_CRON, env as WorkerEnv, later));
    expect(await auditRows()).toBe(rows);
    await captureLogs(() => runScheduled(RETENTION_CRON, { ...env, AUDIT_RETENTION_DAYS: "1" } as WorkerEnv, later));
    expect(await auditRows()).toBe(0);
  });
});
