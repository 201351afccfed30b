/**
 * Migration 0004 moves each existing project's token hash into project_tokens, so projects
 * created before it keep working with the token they hold; migration 0026 gives every token
 * stored before it the `manage` scope, so it keeps every right it had. The migrations run here
 * on a copy of the schema under other table names (one D1 database per test file), with rows
 * inserted the way the old code did, just before the migration.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/http/tokens";
import { migrateRenamedTo, runRenamed } from "../support/renamed-migrations";

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

describe("migration 0026 (token scopes)", () => {
  it("every token stored before it is a manage token, expired or not", async () => {
    const prefix = "m26_";
    await migrateRenamedTo(prefix, "0026", async () => {
      await env.DB.prepare(`INSERT INTO ${prefix}projects (id, slug, name, created_at) VALUES (1, 'old', 'Old', 1700000000)`).run();
      await env.DB.prepare(
        `INSERT INTO ${prefix}project_tokens (project_id, token_hash, created_at, expires_at) VALUES (1, 'h1', 1700000000, NULL), (1, 'h2', 1700000001, 1800000000)`,
      ).run();
    });
    const rows = await env.DB.prepare(`SELECT token_hash, expires_at, scope FROM ${prefix}project_tokens ORDER BY id`).all();
    expect(rows.results).toEqual([
      { token_hash: "h1", expires_at: null, scope: "manage" },
      { token_hash: "h2", expires_at: 1800000000, scope: "manage" },
    ]);
  });
});
