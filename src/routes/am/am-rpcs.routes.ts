import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { ApiError, errorResponses } from "../../http/errors";
import { isXmlMediaType, mediaType } from "../../http/xml";
import { IdParam, TimeSchema } from "../common";
import { HostParams, RpcRequestSchema, RpcResponseSchema } from "./am-rpcs.schemas";

/** An RPC is JSON or the client's own XML; anything else is 415. */
const requireRpcMediaType = createMiddleware<AppEnv>(async (c, next) => {
  const type = c.req.header("content-type");
  if (mediaType(type) !== "application/json" && !isXmlMediaType(type)) {
    throw new ApiError(415, "unsupported_media_type", "send the RPC as JSON (application/json) or as the client's XML (application/xml)");
  }
  await next();
});

export const postRpcRoute = createRoute({
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
      user_id: IdParam.optional().openapi({
        param: { name: "user_id", in: "query" },
        description: "XML only: the host's owner (the JSON body's user_id)",
      }),
      now: z.coerce
        .number()
        .pipe(TimeSchema)
        .optional()
        .openapi({ param: { name: "now", in: "query" }, description: "XML only: the JSON body's now" }),
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

export const listRpcsRoute = createRoute({
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
