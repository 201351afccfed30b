/**
 * POST /holders' writes: the same upsert as one PUT per holder (entities.upsert.ts), made for
 * a whole kind at once. Holders that give the same fields share one `INSERT … SELECT FROM
 * json_each(?) … ON CONFLICT DO UPDATE` (a field left out keeps its stored value, so the SET list
 * depends on which fields were given), and each kind's snapshot marks go in one queue row per
 * thousand. A bridge's 1000 hosts, 1000 users and 1000 teams were 6,000 statements; now a handful.
 */
import { type SQL, sql } from "drizzle-orm";
import { chunks, insertFromJson, name } from "../../db/sql-helpers";
import { keepCarriedCreditHome, keepOldOwnersCredit, ownerChangeClears } from "../../db/owner-carriers";
import { hosts, kvMarks, teams, users } from "../../db/schema";
import { SUBJECT_OF_KIND } from "../../snapshots/holders";
import type { HolderKind } from "../../snapshots/keys";
import type { PutHolder } from "./entities.schemas";

const HOLDER_TABLES = { hosts, users, teams } as const;

/** The fields a bulk holder may give, per kind, and the column each sets. */
const DETAILS = {
  hosts: { name: hosts.name, user_id: hosts.userId, cpid: hosts.hostCpid },
  users: { name: users.name, team_id: users.teamId, cpid: users.cpid, stats_export: users.statsExport },
  teams: { name: teams.name },
} as const;

/** Subjects per queue row, as kv-marks.ts writes them. */
const MARKS_PER_ROW = 1000;
/** Holders per statement: keeps a bound JSON document far below D1's limit on a value. */
const HOLDERS_PER_STATEMENT = 500;

export type BulkHolder = PutHolder & { id: number };

/**
 * The upserts of one kind's holders, then their snapshot marks (always written, as a PUT's are:
 * the cron rewrites the snapshots that show names and owners).
 */
export function bulkHolderWrites(projectId: number, kind: HolderKind, holders: readonly BulkHolder[], now: number): SQL[] {
  const table = HOLDER_TABLES[kind];
  const details = Object.entries(DETAILS[kind]) as [keyof PutHolder, (typeof table)["name"]][];
  // Holders giving the same fields (and create_time or not) take the same SET list.
  const groups = new Map<string, BulkHolder[]>();
  for (const h of holders) {
    const key = [h.create_time !== undefined, ...details.map(([f]) => h[f] !== undefined)].join();
    groups.set(key, [...(groups.get(key) ?? []), h]);
  }
  const statements: SQL[] = [];
  for (const group of groups.values()) {
    const first = group[0]!;
    const given = details.filter(([f]) => first[f] !== undefined);
    const hasClock = first.create_time !== undefined;
    const ownerGiven = kind === "hosts" && first.user_id !== undefined;
    const set = [
      ...given.map(([, c]) => sql`${name(c)} = excluded.${name(c)}`),
      // A host that changes owner stops carrying the old owner's credit (db/owner-carriers.ts).
      ...(ownerGiven ? [ownerChangeClears] : []),
      ...(hasClock
        ? [
            sql`${name(table.createTime)} = excluded.${name(table.createTime)}`,
            // Before any credit, the RAC clock follows the registered creation time.
            sql`${name(table.expavgTime)} = CASE WHEN ${name(table.totalCredit)} = 0 AND ${name(table.expavgCredit)} = 0 THEN excluded.${name(table.createTime)} ELSE ${name(table.expavgTime)} END`,
          ]
        : []),
    ];
    const fields = [
      [table.projectId, sql`${projectId}`],
      [table.id, "id"],
      [table.createTime, "t"],
      [table.expavgTime, "t"],
      ...given.map(([f, c]) => [c, f] as const),
    ] as const;
    const onConflict = sql`ON CONFLICT (${name(table.projectId)}, ${name(table.id)}) DO UPDATE SET ${
      set.length > 0 ? sql.join(set, sql`, `) : sql`${name(table.id)} = excluded.${name(table.id)}`
    }`;
    for (const part of chunks(group, HOLDERS_PER_STATEMENT)) {
      const rows = part.map((h) => ({ ...h, t: h.create_time ?? now }));
      if (ownerGiven)
        statements.push(
          ...keepOldOwnersCredit(
            projectId,
            part.map((h) => ({ host: h.id, owner: h.user_id! })),
          ),
        );
      // The clock's move reads the user's row: its credit as it stands goes there first.
      if (kind === "users" && hasClock)
        statements.push(
          ...keepCarriedCreditHome(
            projectId,
            part.map((h) => h.id),
          ),
        );
      statements.push(insertFromJson(sql`${table}`, fields, rows, onConflict));
    }
  }
  const subject = SUBJECT_OF_KIND[kind];
  for (const part of chunks(holders, MARKS_PER_ROW)) {
    const subjects = JSON.stringify(part.map((h) => [subject, h.id]));
    statements.push(sql`INSERT INTO ${kvMarks} (${name(kvMarks.projectId)}, ${name(kvMarks.subjects)}) VALUES (${projectId}, ${subjects})`);
  }
  return statements;
}
