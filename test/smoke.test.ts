import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import small11 from "./fixtures/traces/small-11.jsonl?raw";

describe("worker", () => {
  it("GET /health checks each bound database (DB_UNMIGRATED is never migrated here) and KV", async () => {
    const res = await exports.default.fetch("http://cobblestone.test/health");
    const body = (await res.json()) as { ok: boolean; checks: { name: string; ok: boolean }[] };
    expect(res.status).toBe(503);
    expect(body.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(["DB_UNMIGRATED"]);
  });

  it("has the test admin token bound", () => {
    expect(env.ADMIN_TOKEN).toBe("test-admin-token");
  });
});

describe("D1", () => {
  it("has the migrated projects table", async () => {
    const table = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'projects'").first<{
      name: string;
    }>();
    expect(table?.name).toBe("projects");

    await env.DB.prepare("INSERT INTO projects (slug, name, url, created_at) VALUES (?, ?, ?, ?)")
      .bind("demo", "Demo", null, 1700000000.5)
      .run();
    const row = await env.DB.prepare("SELECT id, slug, created_at FROM projects WHERE slug = ?")
      .bind("demo")
      .first<{ id: number; slug: string; created_at: number }>();
    expect(row).toEqual({ id: 1, slug: "demo", created_at: 1700000000.5 });

    // slug is UNIQUE
    await expect(env.DB.prepare("INSERT INTO projects (slug, name, created_at) VALUES ('demo', 'x', 0)").run()).rejects.toThrow(/UNIQUE/);
  });

  it("supports exp(), ln() and json_extract()", async () => {
    const row = await env.DB.prepare("SELECT exp(1.0) AS e, ln(2.0) AS l, json_extract('[1,2]', '$[1]') AS j").first<{
      e: number;
      l: number;
      j: number;
    }>();
    expect(row).not.toBeNull();
    expect(row!.e).toBeCloseTo(Math.E, 12);
    expect(row!.l).toBeCloseTo(Math.LN2, 12);
    expect(row!.j).toBe(2);
  });

  it("supports log(), log2(), pow(), sqrt() but not the aliases log10() / power()", async () => {
    const row = await env.DB.prepare("SELECT log(100.0) AS l10, log2(8.0) AS l2, pow(2.0, 10.0) AS p, sqrt(4.0) AS s").first<{
      l10: number;
      l2: number;
      p: number;
      s: number;
    }>();
    expect(row).toEqual({ l10: 2, l2: 3, p: 1024, s: 2 });
    await expect(env.DB.prepare("SELECT log10(100.0)").first()).rejects.toThrow(/not authorized/);
    await expect(env.DB.prepare("SELECT power(2.0, 3.0)").first()).rejects.toThrow(/not authorized/);
  });

  // Gotcha: D1 binds every JS number as REAL, even integer-valued ones (and rejects bigint).
  // Column affinity still stores 3 as INTEGER in an INTEGER column, but in expressions
  // `? / 2` with 7 bound is 3.5: CAST(? AS INTEGER) where integer arithmetic is meant.
  it("binds JS numbers as REAL, even 3", async () => {
    const stmt = env.DB.prepare("SELECT typeof(?1) AS t, ?1 / 2 AS half, typeof(CAST(?1 AS INTEGER)) AS c");
    expect(await stmt.bind(3).first()).toEqual({ t: "real", half: 1.5, c: "integer" });
    expect(await stmt.bind(3.5).first()).toEqual({ t: "real", half: 1.75, c: "integer" });
    expect(() => stmt.bind(3n)).toThrow(/bigint/); // thrown synchronously by bind()

    await env.DB.prepare("INSERT INTO projects (slug, name, created_at) VALUES ('affinity', 'x', ?)").bind(3).run();
    const row = await env.DB.prepare(
      "SELECT typeof(id) AS id_t, typeof(created_at) AS created_t FROM projects WHERE slug = 'affinity'",
    ).first();
    expect(row).toEqual({ id_t: "integer", created_t: "real" });
  });
});

describe("KV", () => {
  it("writes and reads a key", async () => {
    await env.KV.put("smoke:key", "hello");
    expect(await env.KV.get("smoke:key")).toBe("hello");
  });
});

describe("fixtures", () => {
  it("imports a 1.3 MB trace with ?raw", () => {
    expect(small11.length).toBeGreaterThan(1_000_000);
    const lines = small11.trimEnd().split("\n");
    const first = JSON.parse(lines[0]!) as { op: string; name: string };
    expect(first.op).toBe("app");
    expect(first.name).toBe("alpha");
    expect(lines.length).toBeGreaterThan(1000);
  });
});
