/**
 * Migration 0004 moves each existing project's token hash into project_tokens, so projects
 * created before it keep working with the token they hold. The migrations run here on a copy
 * of the schema under other table names (one D1 database per test file), with a project
 * inserted the way the old code did, between 0003 and 0004.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/http/tokens";

const PREFIX = "m4_";

/** The migration's statements with every table and index name prefixed. */
function renamed(sqlText: string, names: Set<string>): string[] {
  return sqlText
    .split("--> statement-breakpoint")
    .map((s) => s.replace(/`([a-z_0-9]+)`/g, (all, name: string) => (names.has(name) ? `\`${PREFIX}${name}\`` : all)))
    .filter((s) => s.trim() !== "");
}

describe("migration 0004 (project tokens)", () => {
  it("an existing project's token works after the migration, and the projects table no longer holds it", async () => {
    const migrations = env.TEST_MIGRATIONS;
    const names = new Set<string>();
    for (const m of migrations) {
      for (const q of m.queries) for (const [, name] of q.matchAll(/CREATE (?:UNIQUE )?(?:TABLE|INDEX) `([a-z_0-9]+)`/g)) names.add(name!);
    }
    const run = async (name: string) => {
      const m = migrations.find((x) => x.name.startsWith(name))!;
      for (const statement of renamed(m.queries.join("--> statement-breakpoint"), names)) await env.DB.prepare(statement).run();
    };
    for (const n of ["0000", "0001", "0002", "0003"]) await run(n);
    const token = "cbl_made-before-rotation-existed";
    await env.DB.prepare(`INSERT INTO ${PREFIX}projects (slug, name, token_hash, created_at) VALUES ('old', 'Old', ?, 1700000000)`)
      .bind(await sha256Hex(token))
      .run();
    await run("0004");

    const row = await env.DB.prepare(
      `SELECT p.slug, t.token_hash, t.created_at, t.expires_at FROM ${PREFIX}project_tokens t JOIN ${PREFIX}projects p ON p.id = t.project_id`,
    ).all();
    expect(row.results).toEqual([{ slug: "old", token_hash: await sha256Hex(token), created_at: 1700000000, expires_at: null }]);
    const columns = (await env.DB.prepare(`SELECT sql FROM sqlite_master WHERE name = '${PREFIX}projects'`).first<{ sql: string }>())!.sql;
    expect(columns).not.toContain("token_hash");
  });
});
