/**
 * What the fuzz properties check after every step: a project's rows (equal before and after
 * a rejected request), and the ledger's invariants (every total the sum of its grants).
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { components } from "../support/api-types";

let tables: string[] | undefined;

/** Tables with a project_id column (the audit log included: a rejected request is not audited). */
async function projectTables(): Promise<string[]> {
  if (tables) return tables;
  const { results } = await env.DB.prepare(
    // D1 refuses pragma_table_info: read the column from the CREATE statement.
    "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%`project_id`%' AND name != 'projects' ORDER BY name",
  ).all<{ name: string }>();
  tables = results.map((r) => r.name);
  return tables;
}

/** Every row of the project (one D1 batch), each table's rows sorted. */
export async function projectRows(projectId: number): Promise<Record<string, string[]>> {
  const names = await projectTables();
  const answers = await env.DB.batch(names.map((t) => env.DB.prepare(`SELECT * FROM "${t}" WHERE project_id = ?`).bind(projectId)));
  const rows: Record<string, string[]> = {};
  names.forEach((t, i) => {
    rows[t] = answers[i]!.results.map((r) => JSON.stringify(r)).sort();
  });
  const [project] = (await env.DB.prepare("SELECT * FROM projects WHERE id = ?").bind(projectId).all()).results;
  rows.projects = [JSON.stringify(project)];
  return rows;
}

// The fuzz files take it from here with the ledger's other helpers.
export { projectIdOf } from "../support/project-id";

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * Totals = sums of grants: each host's total_credit is the sum of its results' granted
 * credit, the project's the sum of all, and (every fuzzed result names a user) the users'
 * totals add up to the project's.
 */
export async function expectLedgerConsistent(projectId: number): Promise<void> {
  const [hosts, project, granted, usersTotal] = await env.DB.batch([
    env.DB.prepare(
      `SELECT h.id, h.total_credit AS total,
              (SELECT total(r.granted_credit) FROM results r WHERE r.project_id = h.project_id AND r.host_id = h.id) AS granted
       FROM hosts h WHERE h.project_id = ?`,
    ).bind(projectId),
    env.DB.prepare("SELECT total_credit AS total FROM projects WHERE id = ?").bind(projectId),
    env.DB.prepare("SELECT total(granted_credit) AS total FROM results WHERE project_id = ?").bind(projectId),
    env.DB.prepare("SELECT total(total_credit) AS total FROM users_now WHERE project_id = ?").bind(projectId),
  ]);
  for (const h of hosts!.results as { id: number; total: number; granted: number }[]) {
    expect(close(h.total, h.granted), `host ${h.id}: total ${h.total} ≠ granted ${h.granted}`).toBe(true);
  }
  const projectTotal = (project!.results[0] as { total: number }).total;
  const grantedTotal = (granted!.results[0] as { total: number }).total;
  expect(close(projectTotal, grantedTotal), `project total ${projectTotal} ≠ granted ${grantedTotal}`).toBe(true);
  const users = (usersTotal!.results[0] as { total: number }).total;
  expect(close(users, grantedTotal), `users' totals ${users} ≠ granted ${grantedTotal}`).toBe(true);
}

/** Never a 5xx; an error is exactly the documented shape. */
export function expectWellFormed(status: number, body: unknown, what: string): void {
  expect(status, `${what}: ${JSON.stringify(body)?.slice(0, 300)}`).toBeLessThan(500);
  if (status < 400) return;
  expect(typeof body, what).toBe("object");
  const keys = Object.keys(body as object);
  expect(keys, what).toEqual(["error"]);
  const error = (body as { error: Record<string, unknown> }).error;
  expect(typeof error.code, what).toBe("string");
  expect(typeof error.message, what).toBe("string");
  for (const key of Object.keys(error)) expect(["code", "message", "issues"], what).toContain(key);
  if (error.issues !== undefined) {
    expect(Array.isArray(error.issues), what).toBe(true);
    for (const issue of error.issues as Record<string, unknown>[]) {
      expect(Object.keys(issue).sort(), what).toEqual(["message", "path"]);
    }
  }
}

/** Tracks every result's fresh (not replayed) verdicts across a run: at most one each. */
export class GrantBook {
  private readonly fresh = new Map<number, number>();

  record(body: components["schemas"]["PassResponse"]): void {
    for (const w of body?.workunits ?? []) {
      for (const r of w.results ?? []) {
        if (r.replayed || r.validate_state === "inconclusive") continue;
        const n = (this.fresh.get(r.id) ?? 0) + 1;
        this.fresh.set(r.id, n);
        expect(n, `result ${r.id} decided twice`).toBe(1);
      }
    }
  }
}
