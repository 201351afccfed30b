/**
 * A project's stats export files, streamed out of D1 a page of rows at a time (keyset paging
 * by id, so memory stays flat however many users a project has) and gzipped on the way with
 * CompressionStream. The daily job stores them in KV; the route streams one live when it is
 * not in KV (too large for a KV value, or not generated yet).
 */
import { and, asc, count, eq, gt, isNull, or, sql, sum } from "drizzle-orm";
import type { Db } from "../db/client";
import { apps, hosts, teams, users, usersNow } from "../db/schema";
import { type StatsTable, fileHead, fileTail, hostJson, hostXml, tablesXml, teamJson, teamXml, userJson, userXml } from "./db-dump-format";

export const STATS_FILES = ["user.gz", "team.gz", "host.gz", "user.ndjson.gz", "team.ndjson.gz", "host.ndjson.gz", "tables.xml"] as const;
export type StatsFile = (typeof STATS_FILES)[number];

export function contentTypeOf(file: StatsFile): string {
  return file.endsWith(".gz") ? "application/gzip" : "application/xml; charset=utf-8";
}

const PAGE_ROWS = 1000;

/** users with credit who did not opt out (db_dump: total_credit > 0, consent given). */
function userPage(db: Db, projectId: number, afterId: number) {
  return db
    .select()
    .from(usersNow)
    .where(and(eq(usersNow.projectId, projectId), gt(usersNow.id, afterId), gt(usersNow.totalCredit, 0), eq(usersNow.statsExport, true)))
    .orderBy(asc(usersNow.id))
    .limit(PAGE_ROWS);
}

/** teams with credit (db_dump: total_credit > 0). */
function teamPage(db: Db, projectId: number, afterId: number) {
  return db
    .select()
    .from(teams)
    .where(and(eq(teams.projectId, projectId), gt(teams.id, afterId), gt(teams.totalCredit, 0)))
    .orderBy(asc(teams.id))
    .limit(PAGE_ROWS);
}

const ownerExported = or(isNull(users.statsExport), eq(users.statsExport, true));

/** hosts with credit and an owner, whose owner did not opt out (db_dump's consent filter covers hosts of users). */
async function hostPage(db: Db, projectId: number, afterId: number) {
  const rows = await db
    .select({ h: hosts })
    .from(hosts)
    .leftJoin(users, and(eq(users.projectId, hosts.projectId), eq(users.id, hosts.userId)))
    .where(and(eq(hosts.projectId, projectId), gt(hosts.id, afterId), gt(hosts.totalCredit, 0), sql`${hosts.userId} != 0`, ownerExported))
    .orderBy(asc(hosts.id))
    .limit(PAGE_ROWS);
  return rows.map((r) => r.h);
}

/** head, then each page's records, then tail: pulled page by page as the reader asks. */
function pagedText<R extends { id: number }>(
  head: string,
  page: (afterId: number) => Promise<R[]>,
  record: (r: R) => string,
  tail: string,
): ReadableStream<string> {
  let afterId = 0;
  return new ReadableStream<string>(
    {
      start(controller) {
        if (head) controller.enqueue(head);
      },
      async pull(controller) {
        const rows = await page(afterId);
        if (rows.length > 0) {
          controller.enqueue(rows.map(record).join(""));
          afterId = rows[rows.length - 1]!.id;
        }
        if (rows.length < PAGE_ROWS) {
          if (tail) controller.enqueue(tail);
          controller.close();
        }
      },
    },
    { highWaterMark: 0 },
  );
}

function recordStream(db: Db, projectId: number, table: StatsTable, format: "xml" | "ndjson"): ReadableStream<string> {
  const xml = format === "xml";
  const head = xml ? fileHead(table) : "";
  const tail = xml ? fileTail(table) : "";
  if (table === "user") return pagedText(head, (after) => userPage(db, projectId, after), xml ? userXml : userJson, tail);
  if (table === "team") return pagedText(head, (after) => teamPage(db, projectId, after), xml ? teamXml : teamJson, tail);
  return pagedText(head, (after) => hostPage(db, projectId, after), xml ? hostXml : hostJson, tail);
}

/** tables.xml: db_dump's counts and credit sum ignore consent; they use the same credit filters. */
async function tablesFile(db: Db, projectId: number, now: number): Promise<string> {
  const [[u], [t], [h], appRows] = await db.batch([
    db
      .select({ n: count(), credit: sum(usersNow.totalCredit).mapWith(Number) })
      .from(usersNow)
      .where(and(eq(usersNow.projectId, projectId), gt(usersNow.totalCredit, 0))),
    db
      .select({ n: count() })
      .from(teams)
      .where(and(eq(teams.projectId, projectId), gt(teams.totalCredit, 0))),
    db
      .select({ n: count() })
      .from(hosts)
      .where(and(eq(hosts.projectId, projectId), gt(hosts.totalCredit, 0), sql`${hosts.userId} != 0`)),
    db.select({ name: apps.name }).from(apps).where(eq(apps.projectId, projectId)).orderBy(asc(apps.id)),
  ]);
  return tablesXml({
    updateTime: now,
    nusers: u?.n ?? 0,
    nteams: t?.n ?? 0,
    nhosts: h?.n ?? 0,
    totalCredit: u?.credit ?? 0,
    apps: appRows.map((a) => a.name),
  });
}

/** One export file as a byte stream (gzipped for the .gz ones). */
export async function statsFileStream(db: Db, projectId: number, file: StatsFile, now: number): Promise<ReadableStream<Uint8Array>> {
  if (file === "tables.xml") return new Response(await tablesFile(db, projectId, now)).body!;
  const [table, ...rest] = file.split(".") as [StatsTable, ...string[]];
  const format = rest.length === 2 ? "ndjson" : "xml";
  return recordStream(db, projectId, table, format).pipeThrough(new TextEncoderStream()).pipeThrough(new CompressionStream("gzip"));
}
