/**
 * The central job's project-neutrality index (docs/central-registry.md): every database's
 * cells (src/db/neutrality-cells.ts) joined by host_cpid, fitted per resource class, and
 * published to KV, where GET /v1/central/neutrality and the pages read it. Read-only: no
 * credit is changed.
 */
import { SECONDS_PER_DAY } from "../credit/constants";
import { NEUTRALITY } from "../credit/parameters";
import { type NeutralCell, neutralityIndex } from "../credit/neutrality-fit";
import { inEachProjectDatabase } from "../db/project-db";
import { neutralityCells } from "../db/neutrality-cells";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { type NeutralityBody, neutralityClassBody } from "../snapshots/neutrality.body";

const NEUTRALITY_KV_KEY = "central/neutrality";

const WINDOW_DAYS = NEUTRALITY.periodSeconds / SECONDS_PER_DAY;

const NO_NEUTRALITY: NeutralityBody = { as_of: null, window_days: WINDOW_DAYS, classes: [] };

/** CPU first, then the GPU processor types by name. */
const classOrder = (a: string, b: string) => (a === "cpu" ? -1 : b === "cpu" ? 1 : a < b ? -1 : a > b ? 1 : 0);

function neutralityBody(cells: readonly (NeutralCell & { resource: string })[], now: number): NeutralityBody {
  const byClass = new Map<string, NeutralCell[]>();
  for (const c of cells) {
    const list = byClass.get(c.resource);
    if (list) list.push(c);
    else byClass.set(c.resource, [c]);
  }
  const classes = [...byClass.keys()].sort(classOrder).flatMap((resource) => {
    const fit = neutralityIndex(byClass.get(resource)!);
    return fit.projects.length === 0 ? [] : [neutralityClassBody(resource, fit)];
  });
  return { as_of: now, window_days: WINDOW_DAYS, classes };
}

/** `databases`: every database of the deployment (src/db/project-db.ts allDatabases). */
export async function publishNeutrality(env: object, kv: KVNamespace, now: number): Promise<string> {
  // A database that fails is logged and skipped: the index is published from the others.
  const { values } = await inEachProjectDatabase(env, "neutrality", (db) => neutralityCells(db, now));
  const cells = values.flat();
  const body = neutralityBody(cells, now);
  await kv.put(NEUTRALITY_KV_KEY, JSON.stringify(body));
  const fitted = body.classes.map((c) => `${c.class} ${c.projects.filter((p) => p.status === "fitted").length}/${c.projects.length}`);
  return `neutrality index from ${cells.length} host cells: ${fitted.join(", ") || "no shared hosts"} projects fitted`;
}

/** The latest index from KV: GET /v1/central/neutrality and the pages read it. */
export async function latestNeutrality(c: Context<AppEnv>): Promise<NeutralityBody> {
  return (await c.env.KV.get<NeutralityBody>(NEUTRALITY_KV_KEY, "json")) ?? NO_NEUTRALITY;
}
