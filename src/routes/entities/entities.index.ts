/**
 * Hosts, users and teams: the credit holders. A project may register them (PUT, with
 * create_time, which starts their RAC clock as in BOINC); a pass creates any it names first.
 */
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { decayedRecentAverage } from "../../credit/recent-average";
import { hosts, teams, users } from "../../db/schema";
import type { AppEnv } from "../../env";
import { loadProject, requireProjectToken } from "../../http/auth";
import { ApiError, errorResponses } from "../../http/errors";
import { IdParam, MAX_CLOCK_SKEW_SECONDS, OptionalIdSchema, SlugParams, TimeSchema, serverNow } from "../common";

type Kind = "hosts" | "users" | "teams";
const tables = { hosts, users, teams } as const;
type Row = typeof hosts.$inferSelect | typeof users.$inferSelect | typeof teams.$inferSelect;

const PutBase = {
  create_time: TimeSchema.optional().openapi({ description: "Unix seconds; starts the RAC clock (default: now)" }),
  name: z.string().max(254).optional(),
};
const putSchemas = {
  hosts: z
    .strictObject({
      ...PutBase,
      user_id: OptionalIdSchema.optional(),
      cpid: z.string().max(64).optional().openapi({ description: "BOINC's host_cpid (already hashed with the owner's email)" }),
    })
    .openapi("PutHost"),
  users: z
    .strictObject({
      ...PutBase,
      team_id: OptionalIdSchema.optional(),
      cpid: z.string().max(64).optional(),
      stats_export: z.boolean().optional().openapi({ description: "false: left out of stats exports and cross-project totals (default true)" }),
    })
    .openapi("PutUser"),
  teams: z.strictObject({ ...PutBase }).openapi("PutTeam"),
};

const CreditHolderSchema = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  create_time: z.number(),
  total_credit: z.number(),
  expavg_credit: z.number().openapi({ description: "BOINC's stored RAC, as of expavg_time" }),
  expavg_time: z.number(),
  recent_average_credit: z.number().openapi({ description: "expavg_credit decayed to as_of" }),
  as_of: z.number().openapi({ description: "The time of this answer (Unix seconds)" }),
});
const responseSchemas = {
  hosts: CreditHolderSchema.extend({ user_id: z.number().int(), host_cpid: z.string().nullable() }).openapi("Host"),
  users: CreditHolderSchema.extend({ team_id: z.number().int(), cpid: z.string().nullable(), stats_export: z.boolean() }).openapi("User"),
  teams: CreditHolderSchema.openapi("Team"),
};

function body(kind: Kind, row: Row, asOf: number) {
  const base = {
    id: row.id,
    name: row.name,
    create_time: row.createTime,
    total_credit: row.totalCredit,
    expavg_credit: row.expavgCredit,
    expavg_time: row.expavgTime,
    recent_average_credit: decayedRecentAverage(row, asOf),
    as_of: asOf,
  };
  if (kind === "hosts") {
    const h = row as typeof hosts.$inferSelect;
    return { ...base, user_id: h.userId, host_cpid: h.hostCpid };
  }
  if (kind === "users") {
    const u = row as typeof users.$inferSelect;
    return { ...base, team_id: u.teamId, cpid: u.cpid, stats_export: u.statsExport };
  }
  return base;
}

function mountKind(app: OpenAPIHono<AppEnv>, kind: Kind): void {
  const table = tables[kind];
  const params = SlugParams.extend({ id: IdParam });
  const one = kind.slice(0, -1);
  const putRoute = createRoute({
    method: "put",
    path: `/v1/projects/{slug}/${kind}/{id}`,
    tags: ["Configuration"],
    summary: `Register a ${one} or change its details`,
    description:
      "A new one starts its RAC clock (expavg_time) at create_time, as in BOINC; while it has no credit, " +
      "a later create_time moves the clock too.",
    security: [{ projectToken: [] }],
    request: { params, body: { required: true, content: { "application/json": { schema: putSchemas[kind] } } } },
    responses: {
      200: { description: `The ${one} as stored`, content: { "application/json": { schema: responseSchemas[kind] } } },
      ...errorResponses(400, 401, 403, 422),
    },
  });
  const getRoute = createRoute({
    method: "get",
    path: `/v1/projects/{slug}/${kind}/{id}`,
    tags: ["Credit"],
    summary: `A ${one}'s credit: total, BOINC's stored RAC pair, and the RAC decayed to now`,
    request: { params },
    responses: {
      200: { description: `The ${one}`, content: { "application/json": { schema: responseSchemas[kind] } } },
      ...errorResponses(404),
    },
  });

  app.use(`/v1/projects/:slug/${kind}/:id`, async (c, next) =>
    c.req.method === "GET" ? loadProject(c, next) : requireProjectToken(c, next),
  );

  app.openapi(putRoute, async (c) => {
    const { id } = c.req.valid("param");
    const b = c.req.valid("json") as z.infer<(typeof putSchemas)["hosts"]> & z.infer<(typeof putSchemas)["users"]>;
    const now = serverNow();
    if (b.create_time !== undefined && b.create_time > now + MAX_CLOCK_SKEW_SECONDS) {
      throw new ApiError(422, "create_time_in_future", "create_time is in the future", [
        { path: "create_time", message: "must not be in the future" },
      ]);
    }
    const projectId = c.var.project.id;
    const createTime = b.create_time ?? now;
    const details = {
      ...(b.name === undefined ? {} : { name: b.name }),
      ...(kind === "hosts" && b.user_id !== undefined ? { userId: b.user_id } : {}),
      ...(kind === "hosts" && b.cpid !== undefined ? { hostCpid: b.cpid } : {}),
      ...(kind === "users" && b.team_id !== undefined ? { teamId: b.team_id } : {}),
      ...(kind === "users" && b.cpid !== undefined ? { cpid: b.cpid } : {}),
      ...(kind === "users" && b.stats_export !== undefined ? { statsExport: b.stats_export } : {}),
    };
    const clock =
      b.create_time === undefined
        ? {}
        : {
            createTime,
            // Before any credit, the RAC clock follows the registered creation time.
            expavgTime: sql`CASE WHEN ${table.totalCredit} = 0 AND ${table.expavgCredit} = 0 THEN ${createTime} ELSE ${table.expavgTime} END`,
          };
    const set = { ...details, ...clock };
    const [row] = await c.var.db
      .insert(table)
      .values({ projectId, id, createTime, expavgTime: createTime, ...details } as typeof hosts.$inferInsert)
      .onConflictDoUpdate({
        target: [table.projectId, table.id],
        set: Object.keys(set).length > 0 ? set : { id },
      })
      .returning();
    return c.json(body(kind, row as Row, now) as never, 200);
  });

  app.openapi(getRoute, async (c) => {
    const { id } = c.req.valid("param");
    const [row] = await c.var.db
      .select()
      .from(table)
      .where(and(eq(table.projectId, c.var.project.id), eq(table.id, id)));
    if (!row) throw new ApiError(404, "not_found", `no ${one} ${id} in project '${c.var.project.slug}'`);
    return c.json(body(kind, row as Row, serverNow()) as never, 200);
  });
}

export function mountEntities(app: OpenAPIHono<AppEnv>): void {
  for (const kind of ["hosts", "users", "teams"] as const) mountKind(app, kind);
}
