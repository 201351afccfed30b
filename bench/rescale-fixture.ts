/**
 * SQL for the rescale benchmark, loaded straight into the local D1 (registering 10,000 app
 * versions with 150 PFC samples each through the API would take a million results): three
 * projects with 10, 1,000 and 10,000 app versions over 10 apps, and 100,000 hosts.
 */
import { writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { rng } from "./workload";

export const RESCALE_SIZES = [10, 1_000, 10_000] as const;
export const RESCALE_HOSTS = 100_000;
export const rescaleToken = (versions: number) => `cbl_bench_rescale_${versions}`;

const ROWS_PER_INSERT = 400;

function inserts(table: string, columns: string, rows: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    out.push(`INSERT INTO ${table} (${columns}) VALUES ${rows.slice(i, i + ROWS_PER_INSERT).join(",")};`);
  }
  return out;
}

export function writeRescaleFixture(path: string): void {
  const random = rng(7);
  const sql: string[] = [];
  RESCALE_SIZES.forEach((n, p) => {
    const projectId = 100 + p;
    const hash = createHash("sha256").update(rescaleToken(n)).digest("hex");
    sql.push(
      `INSERT INTO projects (id, slug, name, created_at) VALUES (${projectId}, 'rescale-${n}', 'Rescale ${n}', 0);`,
      `INSERT INTO project_tokens (project_id, token_hash, created_at) VALUES (${projectId}, '${hash}', 0);`,
    );
    const apps = Array.from({ length: 10 }, (_, a) => `(${projectId}, ${a + 1}, 'app${a + 1}')`);
    sql.push(...inserts("apps", "project_id, id, name", apps));
    const versions = Array.from({ length: n }, (_, v) => {
      // One in four versions is a GPU version; every version is well sampled.
      const plan = v % 4 === 3 ? "cuda" : "";
      const pfcAvg = (0.5 + random() * 1.5) * (plan ? 20 : 1);
      return `(${projectId}, ${v + 1}, ${(v % 10) + 1}, 'x86_64-pc-linux-gnu', '${plan}', ${v}, 150, ${pfcAvg})`;
    });
    sql.push(...inserts("app_versions", "project_id, id, app_id, platform, plan_class, version_num, pfc_n, pfc_avg", versions));
  });
  const hosts = Array.from({ length: RESCALE_HOSTS }, (_, h) => `(${100 + RESCALE_SIZES.length - 1}, ${h + 1}, 0)`);
  sql.push(...inserts("hosts", "project_id, id, create_time", hosts));
  writeFileSync(path, sql.join("\n"));
}
