/** Account-manager RPCs: post one host's lifetime totals (booked as clipped deltas), list what was booked. */
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { and, desc, eq } from "drizzle-orm";
import { amRpcs } from "../../db/schema";
import type { AppEnv } from "../../env";
import { requireAmToken } from "../../http/auth";
import { errorResponses } from "../../http/errors";
import { IdParam, SlugSchema, resolveNow } from "../common";
import { RpcRequestSchema, RpcResponseSchema } from "./am-rpcs.schemas";
import { ingestRpc } from "./am-rpcs.service";

export const AmParams = z.object({ am: SlugSchema.openapi({ param: { name: "am", in: "path" }, example: "su" }) });
const HostParams = AmParams.extend({ host_id: IdParam.openapi({ param: { name: "host_id", in: "path" } }) });

const postRpcRoute = createRoute({
  method: "post",
  path: "/v1/am/{am}/hosts/{host_id}/rpcs",
  tags: ["Account managers"],
  summary: "Book one host RPC: lifetime totals per project in, clipped deltas booked",
  description:
    "Books the deltas since the host's previous RPC for each project, each clipped to what the host could have " +
    "done in the interval (the answer lists every clip). The first RPC of a (host, project) only records the baseline. " +
    "Atomic, and exactly once: the same RPC (same host, `now` and totals) posted again books nothing and answers " +
    "`replayed: true`; other totals at the same `now`, or a `now` before the host's last RPC, are 409.",
  security: [{ amToken: [] }],
  request: {
    params: HostParams,
    body: { required: true, content: { "application/json": { schema: RpcRequestSchema } } },
  },
  responses: {
    200: { description: "What was claimed and booked per project", content: { "application/json": { schema: RpcResponseSchema } } },
    ...errorResponses(400, 401, 403, 409, 413, 415, 422),
  },
});

const listRpcsRoute = createRoute({
  method: "get",
  path: "/v1/am/{am}/hosts/{host_id}/rpcs",
  tags: ["Account managers"],
  summary: "A host's latest RPCs, newest first, with what each claimed, booked and clipped",
  security: [{ amToken: [] }],
  request: {
    params: HostParams,
    query: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }),
  },
  responses: {
    200: {
      description: "The RPCs",
      content: { "application/json": { schema: z.object({ rpcs: z.array(RpcResponseSchema.omit({ replayed: true })) }) } },
    },
    ...errorResponses(400, 401, 403),
  },
});

export function mountAmRpcs(app: OpenAPIHono<AppEnv>): void {
  app.use("/v1/am/:am/hosts/:host_id/rpcs", requireAmToken);
  app.openapi(postRpcRoute, async (c) => {
    const { host_id } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(await ingestRpc(c.var.db, c.var.accountManager.id, host_id, resolveNow(body.now), body), 200);
  });
  app.openapi(listRpcsRoute, async (c) => {
    const { host_id } = c.req.valid("param");
    const rows = await c.var.db
      .select({ outcome: amRpcs.outcome })
      .from(amRpcs)
      .where(and(eq(amRpcs.amId, c.var.accountManager.id), eq(amRpcs.hostId, host_id)))
      .orderBy(desc(amRpcs.seq))
      .limit(c.req.valid("query").limit);
    const rpcs = rows.map((r) => {
      const { replayed: _, ...rest } = JSON.parse(r.outcome) as z.infer<typeof RpcResponseSchema>;
      return rest;
    });
    return c.json({ rpcs }, 200);
  });
}
