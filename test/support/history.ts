/**
 * A project's daily history as reads see it: the stored buckets (credit_history) and each
 * holder's current day, kept on its live row (day_credit) until a later day's first grant
 * writes it (src/db/history-transitions.ts).
 */
export interface DayRow {
  subject: string;
  entity_id: number;
  day: number;
  credit: number;
  expavg_credit: number;
  expavg_time: number;
}

export async function historyDays(d1: D1Database, projectId: number): Promise<DayRow[]> {
  const stored = (
    await d1
      .prepare("SELECT subject, entity_id, day, credit, expavg_credit, expavg_time FROM credit_history WHERE project_id = ?")
      .bind(projectId)
      .all<DayRow>()
  ).results;
  const live: DayRow[] = [];
  for (const [subject, table, id] of [
    ["host", "hosts", "id"],
    ["user", "users_now", "id"],
    ["team", "teams", "id"],
    ["project", "projects", "0"],
  ] as const) {
    const key = table === "projects" ? "id" : "project_id";
    const rows = await d1
      .prepare(
        `SELECT ${id} AS entity_id, CAST(expavg_time / 86400.0 AS INTEGER) AS day, day_credit AS credit, expavg_credit, expavg_time FROM ${table} WHERE ${key} = ? AND day_credit <> 0`,
      )
      .bind(projectId)
      .all<Omit<DayRow, "subject">>();
    live.push(...rows.results.map((r) => ({ subject, ...r })));
  }
  const byKey = new Map<string, DayRow>();
  for (const r of [...stored, ...live]) {
    const key = `${r.subject}/${r.entity_id}/${r.day}`;
    const had = byKey.get(key);
    byKey.set(key, had ? { ...(had.expavg_time > r.expavg_time ? had : r), credit: had.credit + r.credit } : r);
  }
  const order = (r: DayRow) => `${r.subject}/${String(r.entity_id).padStart(12, "0")}/${String(r.day).padStart(8, "0")}`;
  return [...byKey.values()].sort((a, b) => (order(a) < order(b) ? -1 : 1));
}
