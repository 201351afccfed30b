import { z } from "@hono/zod-openapi";
import { HOLDER_KINDS } from "../../snapshots/keys";
import { IdSchema } from "../common";
import { putSchemas } from "./entities.schemas";

export const MAX_HOLDERS_PER_KIND = 1000;

const withId = { id: IdSchema };

/** A PUT body with its id; a host's account-manager link fields are only for the one-host PUT. */
const BulkHolderSchemas = {
  hosts: putSchemas.hosts.pick({ create_time: true, name: true, user_id: true, cpid: true }).extend(withId).openapi("BulkHost"),
  users: putSchemas.users.extend(withId).openapi("BulkUser"),
  teams: putSchemas.teams.extend(withId).openapi("BulkTeam"),
};

export const BulkHoldersRequestSchema = z
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

export const BulkHoldersResponseSchema = z
  .object({ hosts: z.number().int(), users: z.number().int(), teams: z.number().int() })
  .openapi("BulkHoldersResponse", { description: "How many of each were registered or updated" });
