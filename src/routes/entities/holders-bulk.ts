/**
 * Registers many hosts, users and teams in one request (a bridge backfilling a BOINC database
 * meets thousands): the same write as one PUT each, all in one batch, all or nothing.
 */
import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { errorResponses } from "../../http/errors";
import { HOLDER_KINDS } from "../../snapshots/keys";
import { IdSchema, SlugParams, serverNow } from "../common";
import { type PutHolder, putSchemas } from "./entities.schemas";
import { checkCreateTime, holderCounts, holderUpserts } from "./holder-upsert";

export const MAX_HOLDERS_PER_KIND = 1000;

const withId = { id: IdSchema };
/** A PUT body with its id; a host's account-manager link fields are only for the one-host PUT. */
const BulkHolderSchemas = {
  hosts: putSchemas.hosts.pick({ create_time: true, name: true, user_id: true, cpid: true }).extend(withId).openapi("BulkHost"),
  users: putSchemas.users.extend(withId).openapi("BulkUser"),
  teams: putSchemas.teams.extend(withId).openapi("BulkTeam"),
};

const BulkHoldersRequestSchema = z
  .strictObject({
    hosts: z.array(BulkHolderSchemas.hosts).max(MAX_HOLDERS_PER_KIND).optional(),
    users: z.array(BulkHolderSchemas.users).max(MAX_HOLDERS_PER_KIND).optional(),
    teams: z.array(BulkHolderSchemas.teams).max(MAX_HOLDERS_PER_KIND).optional(),
  })
  .superRefine((b, ctx) => {
    for (const kind of HOLDER_KINDS) {
      const seen = new Set<number>();
      b[kind]?.forEach((h, i) => {
        if (seen.has(h.id)) ctx.addIssue({ code: "custom", path: [kind, i, "id"], message: `${kind} ${h.id} appears twice` });
        seen.add(h.id);
      });
    }
  })
  .openapi("BulkHoldersRequest");

const BulkHoldersResponseSchema = z
  .object({ hosts: z.number().int(), users: z.number().int(), teams: z.number().int() })
  .openapi("BulkHoldersResponse", { description: "How many of each were registered or updated" });

const route = createRoute({
  method: "post",
  path: "/v1/projects/{slug}/holders",
  tags: ["Configuration"],
  summary: `Register up to ${MAX_HOLDERS_PER_KIND} hosts, users and teams each in one request`,
  description: "Each entry is what PUT /hosts/{id} (/users, /teams) takes, with its id. All are written, or none.",
  ...access("projectToken"),
  request: { params: SlugParams, body: { required: true, content: { "application/json": { schema: BulkHoldersRequestSchema } } } },
  responses: {
    200: { description: "Registered", content: { "application/json": { schema: BulkHoldersResponseSchema } } },
    ...errorResponses(400, 401, 403, 413, 415, 422),
  },
});

export function mountBulkHolders(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const now = serverNow();
    for (const kind of HOLDER_KINDS) body[kind]?.forEach((h, i) => checkCreateTime(h.create_time, now, `${kind}[${i}].create_time`));
    const db = c.var.db;
    const projectId = c.var.project.id;
    const counts = holderCounts(db, projectId, Object.fromEntries(HOLDER_KINDS.map((kind) => [kind, (body[kind] ?? []).map((h) => h.id)])));
    const upserts = HOLDER_KINDS.flatMap((kind) =>
      (body[kind] ?? []).flatMap(({ id, ...fields }) => holderUpserts(db, projectId, kind, id, fields as PutHolder, now)),
    );
    // The count goes first: it counts the holders not stored yet.
    const writes = [...counts, ...upserts];
    if (upserts.length > 0) await db.batch(writes as unknown as Parameters<typeof db.batch>[0]);
    return c.json({ hosts: body.hosts?.length ?? 0, users: body.users?.length ?? 0, teams: body.teams?.length ?? 0 }, 200);
  });
}
