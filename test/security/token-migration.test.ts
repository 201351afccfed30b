/**
 * Migration 0004 moves each existing project's token hash into project_tokens, so projects
 * created before it keep working with the token they hold. The migrations run here on a copy
 * of the schema under other table names (one D1 database per test file), with a project
 * inserted the way the old code did, between 0003 and 0004.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/http/tokens";
import { runRenamed } from "../support/renamed-migrations";

const PREFIX = "m4_";

describe("migration 0004 (project tokens)", () => {
  it("an existing project's token works after the migration, and the projects table no longer holds it", async () => {
    for (const n of ["0000", "0001", "0002", "0003"]) await runRenamed(PREFIX, n);
    const token = "cbl_made-before-rotation-existed";
    await env.DB.prepare(`INSERT INTO ${PREFIX}projects (slug, name, token_hash, created_at) VALUES ('old', 'Old', ?, 1700000000)`)
      .bind(await sha256Hex(token))
      .run();
    await runRenamed(PREFIX, "0004");

    const row = await env.DB.prepare(
      `SELECT p.slug, t.token_hash, t.created_at, t.expires_at FROM ${PREFIX}project_tokens t JOIN ${PREFIX}projects p ON p.id = t.project_id`,
    ).all();
    expect(row.results).toEqual([{ slug: "old", token_hash: await sha256Hex(token), created_at: 1700000000, expires_at: null }]);
    const columns = (await env.DB.prepare(`SELECT sql FROM sqlite_master WHERE name = '${PREFIX}projects'`).first<{ sql: string }>())!.sql;
    expect(columns).not.toContain("token_hash");
  });
});
