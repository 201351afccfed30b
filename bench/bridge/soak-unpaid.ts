/**
 * The soak's last check (docs/bridge.md, "Unpaid results: the count and the audit"): the
 * write-back's own count of unpaid results ends at 0. Read twice: as the bridge exported it in
 * its last metrics file, and by the same query (bridge/write-back/unpaid.ts) on the database at the end,
 * once as the metric counts (validated over 5 minutes ago) and once with no age at all (the
 * daemons stopped and the bridge caught up: nothing may be left).
 */
import { readFileSync } from "node:fs";
import type mysql from "mysql2/promise";
import { countUnpaid } from "../../bridge/write-back/unpaid";
import type { Check } from "./soak-checks";

/** The value of cobblestone_bridge_unpaid_results in a metrics file, or null when it is not there. */
export function unpaidInMetrics(file: string): number | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const m = /^cobblestone_bridge_unpaid_results\{[^}]*\} (\S+)$/m.exec(text);
  return m ? Number(m[1]) : null;
}

export async function unpaidCheck(conn: mysql.Connection, switchTime: number, metricsFile: string): Promise<Check> {
  const exported = unpaidInMetrics(metricsFile);
  const aged = await countUnpaid(conn, switchTime);
  const all = await countUnpaid(conn, switchTime, 0);
  return {
    name: "no valid result unpaid: the bridge's count (its last metrics file) and the same query at the end are 0",
    ok: exported === 0 && aged === 0 && all === 0,
    lines: [
      `cobblestone_bridge_unpaid_results in the last metrics file: ${exported ?? "absent"}; at the end: ${aged} validated over 5 minutes ago, ${all} in all`,
    ],
  };
}
