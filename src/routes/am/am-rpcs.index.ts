/** Account-manager RPCs: post one host's lifetime totals (booked as clipped deltas), list what was booked. */
import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { and, desc, eq } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import { loadHostAccounts } from "../../db/am-accounts";
import { amRpcs } from "../../db/schema";
import type { AppEnv } from "../../env";
import { ApiError, errorResponses, issuesOf } from "../../http/errors";
import { acceptsXml, isXmlMediaType, mediaType } from "../../http/xml";
import { IdParam, SlugSchema, TimeSchema, resolveNow } from "../common";
import { clientRpcFromXml } from "./acct-mgr-request";
import { accountsFragment } from "./acct-mgr-reply";
import { type RpcRequest, RpcRequestSchema, RpcResponseSchema } from "./am-rpcs.schemas";
import { ingestRpc } from "./am-rpcs.service";

export const AmParams = z.object({ am: SlugSchema.openapi({ param: { name: "am", in: "path" }, example: "su" }) });
const HostParams = AmParams.extend({ host_id: IdParam.openapi({ param: { name: "host_id", in: "path" } }) });

/** An RPC is JSON or the client's own XML; anything else is 415. */
const requireRpcMediaType = createMiddleware<AppEnv>(async (c, next) => {
  const type = c.req.header("content-type");
  if (mediaType(type) !== "application/json" && !isXmlMediaType(type)) {
    throw new ApiError(415, "unsupported_media_type", "send the RPC as JSON (application/json) or as the client's XML (application/xml)");
  }
  await next();
});

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
  ...access("amToken", requireRpcMediaType),
  request: {
    params: HostParams,
    query: z.object({
      user_id: IdParam.optional().openapi({ param: { name: "user_id", in: "query" }, description: "XML only: the host's owner (the JSON body's user_id)" }),
      now: z.coerce.number().pipe(TimeSchema).optional().openapi({ param: { name: "now", in: "query" }, description: "XML only: the JSON body's now" }),
    }),
    body: {
      required: false,
      content: {
        "application/json": { schema: RpcRequestSchema },
        "application/xml": {
          schema: z.string().openapi({
            description:
              "The BOINC client's <acct_mgr_request>, byte for byte as the account manager received it; give the owner with ?user_id=. " +
              "Only host_info's p_ncpus, p_fpops and GPU counts and each <project>'s url and lifetime totals are read",
          }),
        },
      },
    },
  },
  responses: {
    200: {
      description: "What was claimed and booked per project; with Accept: application/xml, the host's <account> accounting elements",
      content: {
        "application/json": { schema: RpcResponseSchema },
        "application/xml": { schema: z.string().openapi({ description: "<account> elements to merge into the <acct_mgr_reply>" }) },
      },
    },
    ...errorResponses(400, 401, 403, 409, 413, 415, 422),
  },
});


/** The client's XML, as the JSON RPC it stands for (checked by the same schema). */
function rpcFromXml(xml: string, query: { user_id?: number; now?: number }): RpcRequest {
  const client = clientRpcFromXml(xml);
  if (query.user_id === undefined) {
    throw new ApiError(400, "validation_failed", "say whose host it is with ?user_id=; nothing was recorded", [
      { path: "user_id", message: "required with an XML body" },
    ]);
  }
  const parsed = RpcRequestSchema.safeParse({ ...client, user_id: query.user_id, ...(query.now === undefined ? {} : { now: query.now }) });
  if (!parsed.success) {
    throw new ApiError(400, "validation_failed", "the client's request is invalid; nothing was recorded", issuesOf(parsed.error));
  }
  return parsed.data;
}

const listRpcsRoute = createRoute({
  method: "get",
  path: "/v1/am/{am}/hosts/{host_id}/rpcs",
  tags: ["Account managers"],
  summary: "A host's latest RPCs, newest first, with what each claimed, booked and clipped",
  ...access("amToken"),
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
  app.openapi(postRpcRoute, async (c) => {
    const { host_id } = c.req.valid("param");
    const body = isXmlMediaType(c.req.header("content-type"))
      ? rpcFromXml(await c.req.text(), c.req.valid("query"))
      : (c.req.valid("json") as RpcRequest);
    const now = resolveNow(body.now);
    const amId = c.var.accountManager.id;
    const outcome = await ingestRpc(c.var.db, amId, host_id, now, body);
    if (acceptsXml(c.req.header("accept"))) {
      const accounts = await loadHostAccounts(c.var.db, amId, host_id, body.user_id, now);
      return c.body(accountsFragment(accounts), 200, { "Content-Type": "application/xml; charset=utf-8" });
    }
    return c.json(outcome, 200);
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
