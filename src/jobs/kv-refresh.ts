/**
 * The minute cron's KV refresh (docs/spec/api-contract.md#reads-from-kv): fresh snapshots of everything
 * passes and registrations queued (src/db/kv-marks.ts); then, in one batch, the queue rows it
 * read are deleted and what it did not write is queued again (rows queued meanwhile stay).
 * A run does at most `budget` KV writes (a Worker
 * invocation may do 1,000 KV operations); the rest waits for the next minute, and a failed
 * write leaves its mark for the next run too. A run superseded by a newer one (kv-fence.ts)
 * stops writing and keeps its marks: KV never gets a snapshot older than one it holds.
 */
import { runBatch } from "../db/batch";
import type { Db } from "../db/client";
import { type SubjectRef, countQueued, markKey, readQueue, settleQueue } from "../db/kv-marks";
import { DEFAULT_BINDING, type OpenDatabase, opener, projectDatabase } from "../db/project-db";
import { projects } from "../db/schema";
import { chunks } from "../db/sql-helpers";
import type { Env } from "../env";
import { errorText, log } from "../log";
import { loadAppVersions, loadApps } from "../snapshots/catalog";
import { loadHolderSnapshots } from "../snapshots/holders";
import { HOLDER_KINDS, KIND_OF_SUBJECT, LEADERBOARD_ORDERS, kvKeys } from "../snapshots/keys";
import { SNAPSHOT_LIMITS } from "../snapshots/limits";
import { loadProjectListOf, loadProjectSnapshot } from "../snapshots/project";
import { historyFromDay } from "../snapshots/public-project";
import { storedText } from "../snapshots/store";
import { loadTopPages } from "../snapshots/top-pages";
import { claimFence, stillFenced } from "./kv-fence";

interface Mark extends SubjectRef {
  readonly projectId: number;
}
interface Write {
  readonly key: string;
  readonly text: string;
}
/** A mark and the writes that settle it (a cron job is schedule.ts's `Job`). */
interface MarkWrites {
  readonly mark: Mark | null;
  readonly writes: readonly Write[];
}

export interface RefreshReport {
  readonly written: number;
  readonly failed: number;
  /** Marks still set after the run (for the next one). */
  readonly left: number;
  /** A newer run claimed the fence: this one stopped writing (some or all of its writes). */
  readonly superseded: boolean;
}

const LOAD_CHUNK = 100;

/** One database's marks (each database keeps the marks of the projects that live in it). */
export async function refreshSnapshots(
  env: Env,
  now: number,
  budget: number = SNAPSHOT_LIMITS.kvWritesPerRun,
  binding: string = DEFAULT_BINDING,
): Promise<RefreshReport> {
  const db = projectDatabase(env, binding);
  if (!(await claimFence(db, now))) return { written: 0, failed: 0, left: await countQueued(db), superseded: true };
  const queue = await readQueue(db, budget);
  const marks = inRefreshOrder(queue.byProject);
  const planned = await planWrites(db, marks, now, budget, () => loadProjectListOf(env), opener(env));
  const { failed, unwritten } = await putAll(
    env.KV,
    planned.flatMap((p) => p.writes),
    () => stillFenced(db, now),
  );
  const settled = new Set(
    planned
      .filter((p) => p.mark && p.writes.every((w) => !failed.has(w.key) && !unwritten.has(w.key)))
      .map((p) => markKey(p.mark!.projectId, p.mark!)),
  );
  // Whatever was read but not written (over budget, failed, superseded) is queued again.
  const left = new Map<number, SubjectRef[]>();
  for (const [projectId, subjects] of queue.byProject) {
    const rest = subjects.filter((s) => !settled.has(markKey(projectId, s)));
    if (rest.length > 0) left.set(projectId, rest);
  }
  await runBatch(db, settleQueue(queue.ids, left));
  return {
    written: planned.reduce((n, p) => n + p.writes.length, 0) - failed.size - unwritten.size,
    failed: failed.size,
    left: await countQueued(db),
    superseded: unwritten.size > 0,
  };
}

/**
 * Project marks first (totals, leaderboards: few, and what most readers see), then holders
 * round robin across projects (each project's oldest mark, then each one's second…), so one
 * busy project cannot starve the others of the write budget.
 */
function inRefreshOrder(byProject: ReadonlyMap<number, readonly SubjectRef[]>): Mark[] {
  const mark = (projectId: number, s: SubjectRef): Mark => ({ projectId, ...s });
  const projectMarks = [...byProject].flatMap(([projectId, list]) =>
    list.filter((s) => s.subject === "project").map((s) => mark(projectId, s)),
  );
  const holders = [...byProject].map(([projectId, list]) => list.filter((s) => s.subject !== "project").map((s) => mark(projectId, s)));
  const holderMarks: Mark[] = [];
  for (let i = 0; holders.some((list) => i < list.length); i++) {
    for (const list of holders) if (i < list.length) holderMarks.push(list[i]!);
  }
  return [...projectMarks, ...holderMarks];
}

async function planWrites(
  db: Db,
  marks: readonly Mark[],
  now: number,
  budget: number,
  projectList: () => ReturnType<typeof loadProjectListOf>,
  open: OpenDatabase,
): Promise<MarkWrites[]> {
  const rows = await db.select({ id: projects.id, slug: projects.slug, since: projects.holderSnapshotsSince }).from(projects);
  const slugs = new Map(rows.map((p) => [p.id, p.slug] as const));
  const readLive = new Set(rows.filter((p) => p.since === null).map((p) => p.id));
  const fromDay = historyFromDay(now);
  const planned: MarkWrites[] = [];
  let spent = 0;
  const take = (entry: MarkWrites) => {
    planned.push(entry);
    spent += entry.writes.length;
  };
  const text = <T>(data: T) => storedText(data, now);

  for (const mark of marks.filter((m) => m.subject === "project")) {
    const slug = slugs.get(mark.projectId)!;
    const snapshot = await loadProjectSnapshot(db, slug, fromDay, open);
    if (!snapshot) continue;
    const pagesOf = (n: number) =>
      Math.min(SNAPSHOT_LIMITS.leaderboardPagesKept, Math.max(1, Math.ceil(n / SNAPSHOT_LIMITS.leaderboardPageSize)));
    const pages = { hosts: pagesOf(snapshot.hosts), users: pagesOf(snapshot.users), teams: pagesOf(snapshot.teams) };
    const cost = 3 + LEADERBOARD_ORDERS.length * (pages.hosts + pages.users + pages.teams) + (spent === 0 ? 1 : 0);
    if (spent + cost > budget) break;
    if (spent === 0) take({ mark: null, writes: [{ key: kvKeys.projects(), text: text(await projectList()) }] });
    const writes: Write[] = [
      { key: kvKeys.project(slug), text: text(snapshot) },
      { key: kvKeys.apps(slug), text: text(await loadApps(db, snapshot.id)) },
      { key: kvKeys.appVersions(slug), text: text(await loadAppVersions(db, snapshot.id)) },
    ];
    // One scan of each board ranks its top pages in both orders (no index: src/snapshots/top-pages.ts).
    for (const kind of HOLDER_KINDS) {
      const loaded = await loadTopPages(db, snapshot.id, kind, pages[kind]);
      for (const by of LEADERBOARD_ORDERS) {
        loaded[by].forEach((page, n) => writes.push({ key: kvKeys.leaderboardPage(slug, kind, by, n), text: text(page) }));
      }
    }
    take({ mark, writes });
  }

  // A project whose holders are read live from D1 has no holder snapshots: its marks are cleared unwritten.
  for (const mark of marks.filter((m) => m.subject !== "project" && readLive.has(m.projectId))) take({ mark, writes: [] });
  // What the projects' snapshots left of the budget goes to holder marks in their round-robin order.
  const holderMarks = marks.filter((m) => m.subject !== "project" && !readLive.has(m.projectId)).slice(0, Math.max(0, budget - spent));
  const groups = new Map<string, Mark[]>();
  for (const m of holderMarks) {
    const key = `${m.projectId}/${m.subject}`;
    const list = groups.get(key);
    if (list) list.push(m);
    else groups.set(key, [m]);
  }
  for (const group of groups.values()) {
    const { projectId, subject } = group[0]!;
    const kind = KIND_OF_SUBJECT[subject as keyof typeof KIND_OF_SUBJECT];
    const slug = slugs.get(projectId)!;
    for (const part of chunks(group, LOAD_CHUNK)) {
      const loaded = await loadHolderSnapshots(
        db,
        projectId,
        kind,
        part.map((m) => m.id),
        fromDay,
        open,
      );
      for (const mark of part) {
        const snapshot = loaded.get(mark.id);
        // A mark without a row (none is ever deleted, but be safe) is cleared with no write.
        take({ mark, writes: snapshot ? [{ key: kvKeys.holder(slug, kind, mark.id), text: text(snapshot) }] : [] });
      }
    }
  }
  return planned;
}

/**
 * Writes everything, a few at a time, while `fenced()` holds; returns the keys whose write
 * failed and those left unwritten because a newer run took over.
 */
async function putAll(
  kv: KVNamespace,
  writes: readonly Write[],
  fenced: () => Promise<boolean>,
): Promise<{ failed: Set<string>; unwritten: Set<string> }> {
  const failed = new Set<string>();
  const unwritten = new Set<string>();
  for (const batch of chunks(writes, SNAPSHOT_LIMITS.kvWriteConcurrency)) {
    if (unwritten.size > 0 || !(await fenced())) {
      for (const w of batch) unwritten.add(w.key);
      continue;
    }
    const outcomes = await Promise.allSettled(batch.map((w) => kv.put(w.key, w.text)));
    outcomes.forEach((o, i) => {
      if (o.status === "rejected") {
        log("error", { event: "kv_write_failed", key: batch[i]!.key, error: errorText(o.reason) });
        failed.add(batch[i]!.key);
      }
    });
  }
  return { failed, unwritten };
}
