import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { TOKEN_SCOPES } from "../../db/schema";
import { MAX_LIVE_TOKENS, TOKEN_ISSUE_LIMIT } from "../../limits";
import { SlugParams, SlugSchema } from "../common";

const TokenIdParams = z.object({
  slug: SlugSchema.openapi({ param: { name: "slug", in: "path" } }),
  id: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, "a positive integer id")
    .transform(Number)
    .openapi({ param: { name: "id", in: "path" }, example: "2" }),
});

const ScopeSchema = z.enum(TOKEN_SCOPES).openapi({
  description:
    "'ingest': what a validator or the bridge needs (passes, pass batches, errors, trickles, rescales; registering apps with " +
    "host_scale_check and target_nresults, app versions and holders; every read). 'manage': that, and the apps' other settings, " +
    "the fair re-base and the project's tokens (docs/tokens-and-audit.md#scopes)",
});

const TokenInfoSchema = z
  .object({
    id: z.number().int().openapi({ description: "Not secret: names the token in the audit log and in DELETE" }),
    created_at: z.number(),
    expires_at: z.number().nullable().openapi({ description: "Null: works until revoked" }),
    scope: ScopeSchema,
  })
  .openapi("TokenInfo");

const IssuedTokenSchema = TokenInfoSchema.extend({
  token: z.string().openapi({ description: "The new bearer token. Shown only this once; store it." }),
  others_expire_at: z.number().openapi({
    description: "The project's other tokens of the same scope stop working at this time (24 h from now) unless revoked sooner",
  }),
}).openapi("IssuedToken");

const IssueTokenSchema = z
  .strictObject({
    scope: ScopeSchema.optional().openapi({
      description:
        "The new token's scope; default 'manage' (a rotation: the new token replaces the caller's). For the validators or the bridge, 'ingest'",
    }),
  })
  .openapi("IssueToken");

export const issueTokenRoute = createRoute({
  method: "post",
  path: "/v1/projects/{slug}/tokens",
  tags: ["Tokens"],
  summary: "Rotate: issue a new project token; the others of its scope keep working for 24 hours",
  description:
    "The body is optional: `{scope?}`, default 'manage'. Issuing a token of one scope leaves the tokens of the other alone " +
    "(an 'ingest' token for the bridge does not expire the operator's 'manage' one). " +
    `At most ${MAX_LIVE_TOKENS} live tokens per project (409 beyond: revoke one first); at most ${TOKEN_ISSUE_LIMIT.limit} issued per ${TOKEN_ISSUE_LIMIT.periodSeconds} s per project (429).`,
  ...access("manageTokenOrAdmin"),
  request: {
    params: SlugParams,
    body: { required: false, content: { "application/json": { schema: IssueTokenSchema } } },
  },
  responses: {
    201: { description: "The new token", content: { "application/json": { schema: IssuedTokenSchema } } },
    ...errorResponses(400, 401, 403, 404, 409, 429, 503),
  },
});

export const listTokensRoute = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/tokens",
  tags: ["Tokens"],
  summary: "The project's live tokens (ids, scopes and expiry, never the tokens)",
  ...access("manageTokenOrAdmin"),
  request: { params: SlugParams },
  responses: {
    200: {
      description: "Live tokens, oldest first",
      content: { "application/json": { schema: z.object({ tokens: z.array(TokenInfoSchema) }) } },
    },
    ...errorResponses(401, 403, 404, 429, 503),
  },
});

export const revokeTokenRoute = createRoute({
  method: "delete",
  path: "/v1/projects/{slug}/tokens/{id}",
  tags: ["Tokens"],
  summary: "Revoke a token at once",
  description: "The project's last live 'manage' token can't be revoked (409): rotate first.",
  ...access("manageTokenOrAdmin"),
  request: { params: TokenIdParams },
  responses: {
    200: {
      description: "Revoked",
      content: { "application/json": { schema: z.object({ id: z.number().int(), revoked: z.literal(true) }) } },
    },
    ...errorResponses(400, 401, 403, 404, 409, 429, 503),
  },
});
