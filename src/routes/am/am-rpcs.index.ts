/** Account-manager RPCs: post one host's lifetime totals (booked as clipped deltas), list what was booked. */
import { createRouter } from "../../http/router";
import { loadHostAccounts } from "../../db/am-accounts";
import { ApiError, issuesOf } from "../../http/errors";
import { acceptsXml, isXmlMediaType } from "../../http/xml";
import { resolveNow } from "../common";
import { clientRpcFromXml } from "./am-rpcs.xml-request";
import { accountsFragment } from "./am-rpcs.xml-reply";
import { type RpcRequest, RpcRequestSchema } from "./am-rpcs.schemas";
import { listRpcsRoute, postRpcRoute } from "./am-rpcs.routes";
import { ingestRpc, listRpcs } from "./am-rpcs.service";
import type { AppRouteHandler } from "../route-handler";

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

const listRpcsHandler: AppRouteHandler<typeof listRpcsRoute> = async (c) => {
  const { host_id } = c.req.valid("param");
  const rpcs = await listRpcs(c.var.db, c.var.accountManager.id, host_id, c.req.valid("query").limit);
  return c.json({ rpcs }, 200);
};

const postRpcHandler: AppRouteHandler<typeof postRpcRoute> = async (c) => {
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
};

export const amRpcsRouter = createRouter().openapi(postRpcRoute, postRpcHandler).openapi(listRpcsRoute, listRpcsHandler);
