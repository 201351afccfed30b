/**
 * The largest requests again, through the Worker's own pass code (ingestPass,
 * ingestPassBatch) on wrangler's local D1 (getPlatformProxy: the same SQLite and the same
 * `meta` D1 returns for every statement), on a fresh database: for each request's write batch,
 * D1's own durations of its statements summed (how long it holds the database: a D1 batch
 * is one transaction, and every other project of the database waits behind it), its
 * statements and its rows written.
 */
import { database } from "../src/db/client";
import { ingestPass } from "../src/routes/passes/passes.service";
import { ingestPassBatch } from "../src/routes/passes/pass-batches.service";
import type { PassRequest } from "../src/routes/passes/passes.schemas";
import type { PassBatchRequest } from "../src/routes/passes/pass-batches.schemas";
import { migratedLocalD1 } from "./local-d1";

/**
 * One request of the benchmark (big-pass.ts builds them): its label, its route under the
 * project, its body. Declared here, where it is consumed, so that big-pass.ts imports this
 * module and not the other way round.
 */
export interface BigRequest {
  readonly shape: string;
  readonly route: "passes" | "pass-batches";
  readonly body: unknown;
}

export interface D1WriteRow {
  readonly shape: string;
  /** D1's durations of the write batch's statements, summed. */
  readonly writeMs: number;
  readonly statements: number;
  readonly rowsWritten: number;
}

interface Batch {
  readonly ms: number;
  readonly statements: number;
  readonly rowsWritten: number;
}

export async function d1WriteBatches(
  requests: readonly BigRequest[],
  app: string,
  versionId: number,
  log: (...args: unknown[]) => void = console.log,
): Promise<D1WriteRow[]> {
  const local = await migratedLocalD1(new URL("..", import.meta.url).pathname, "cobblestone-big-pass-d1-");
  try {
    const raw = local.d1;
    await raw.prepare("INSERT INTO projects (id, slug, name, created_at, expavg_time) VALUES (1, 'big', 'Big', 0, 0)").run();
    await raw.prepare("INSERT INTO apps (project_id, id, name) VALUES (1, 1, ?)").bind(app).run();
    await raw
      .prepare(
        "INSERT INTO app_versions (project_id, id, app_id, platform, plan_class, version_num) VALUES (1, ?, 1, 'x86_64-pc-linux-gnu', '', 100)",
      )
      .bind(versionId)
      .run();
    let batches: Batch[] = [];
    const metered = new Proxy(raw, {
      get(target, prop) {
        if (prop === "batch") {
          return async (statements: D1PreparedStatement[]) => {
            const results = await target.batch(statements);
            batches.push({
              ms: results.reduce((sum, r) => sum + (r.meta.duration ?? 0), 0),
              statements: statements.length,
              rowsWritten: results.reduce((sum, r) => sum + (r.meta.rows_written ?? 0), 0),
            });
            return results;
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const db = database(metered);
    const rows: D1WriteRow[] = [];
    for (const r of requests) {
      batches = [];
      if (r.route === "passes") {
        const body = r.body as PassRequest;
        await ingestPass(db, 1, body.now!, body);
      } else {
        await ingestPassBatch(db, 1, r.body as PassBatchRequest);
      }
      // The write batch is the one that writes (the read batch before it writes nothing).
      const write = batches.reduce((a, b) => (b.rowsWritten > a.rowsWritten ? b : a));
      rows.push({ shape: r.shape, writeMs: write.ms, statements: write.statements, rowsWritten: write.rowsWritten });
      log(rows.at(-1));
    }
    return rows;
  } finally {
    await local.dispose();
  }
}
