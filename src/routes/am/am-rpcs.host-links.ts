/**
 * A project says which account-manager host its host is (PUT /v1/projects/:slug/hosts/:id with
 * `account_manager` and `am_host_id`): reconciliation then compares the credit the project
 * granted that host with the credit the account manager's client estimated.
 *
 * Links live in the registry (the default database), beside the account managers and their
 * daily rows, whichever database holds the project's hosts: the reconciliation reads them
 * there and each project's granted credit in its own database.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { accountManagers, amHostLinks } from "../../db/schema";
import { ApiError } from "../../http/errors";
import { IdSchema, SlugSchema } from "../common";

/** The fields PUT …/hosts/:id takes for the link. */
export const amHostLinkFields = {
  account_manager: SlugSchema.optional().openapi({ description: "The account manager (slug) that also reports this host" }),
  am_host_id: IdSchema.nullable().optional().openapi({ description: "The account manager's id of this host; null removes the link" }),
};

type LinkFields = { account_manager?: string | undefined; am_host_id?: number | null | undefined };

/**
 * The write that links (or unlinks) the host, or null if the body does not mention the link;
 * `registry` is the default database. Wrapped in an object: a drizzle query is a thenable,
 * which an async function would run.
 */
export async function amHostLinkWrite(registry: Db, projectId: number, hostId: number, body: LinkFields) {
  const ofHost = and(eq(amHostLinks.projectId, projectId), eq(amHostLinks.hostId, hostId));
  if (body.am_host_id === undefined) {
    if (body.account_manager === undefined) return null;
    throw new ApiError(400, "validation_failed", "the request body is invalid; nothing was written", [
      { path: "am_host_id", message: "required with account_manager" },
    ]);
  }
  if (body.am_host_id === null) return { write: registry.delete(amHostLinks).where(ofHost) };
  if (body.account_manager === undefined) {
    throw new ApiError(400, "validation_failed", "the request body is invalid; nothing was written", [
      { path: "account_manager", message: "required with am_host_id" },
    ]);
  }
  const [am] = await registry
    .select({ id: accountManagers.id })
    .from(accountManagers)
    .where(eq(accountManagers.slug, body.account_manager));
  if (!am) throw new ApiError(404, "not_found", `no account manager '${body.account_manager}'`);
  return {
    write: registry
      .insert(amHostLinks)
      .values({ projectId, hostId, amId: am.id, amHostId: body.am_host_id })
      .onConflictDoUpdate({ target: [amHostLinks.projectId, amHostLinks.hostId], set: { amId: am.id, amHostId: body.am_host_id } }),
  };
}
