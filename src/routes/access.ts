/**
 * Who may call a route, declared with the route: `createRoute({ ...access("projectToken"), … })`
 * gives the OpenAPI `security` and the middleware that enforces it from one entry, so a route
 * cannot document one thing and check another, and renaming its path keeps its auth. Route
 * middleware runs before the route's validators: a request without a token is 401 before its
 * body or parameters are read (400).
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import {
  loadAccountManager,
  loadProject,
  requireAdmin,
  requireAmToken,
  requireCentralToken,
  requireManageToken,
  requireManageTokenOrAdmin,
  requireProjectToken,
  requireProjectTokenOrAdmin,
} from "../http/auth";
import { publicRead } from "../snapshots/public-project";

type Middleware = MiddlewareHandler<AppEnv>;
type Security = Record<string, string[]>[];

type Rule = { security?: Security; middleware: Middleware[] };

export type Access =
  | "projectToken"
  | "manageToken"
  | "projectTokenOrAdmin"
  | "manageTokenOrAdmin"
  | "admin"
  | "adminForProject"
  | "amToken"
  | "centralToken"
  | "publicProject"
  | "publicProjectLedger"
  | "publicAccountManager";

/**
 * A project token's scopes (docs/tokens-and-audit.md#scopes) are the OpenAPI security
 * requirement's roles: `projectToken: []` takes any of the project's tokens (an `ingest` one
 * suffices), `projectToken: ["manage"]` only a `manage` one (an `ingest` token is 403
 * `insufficient_scope`). test/security/scopes.test.ts holds the decision for every route.
 */
const MANAGE = ["manage"];

const ACCESS: Record<Access, Rule> = {
  /** Any of the project's own tokens (:slug): an `ingest` one suffices. */
  projectToken: { security: [{ projectToken: [] }], middleware: [requireProjectToken] },
  /** A `manage` token of the project (:slug). */
  manageToken: { security: [{ projectToken: MANAGE }], middleware: [requireManageToken] },
  /** Any of the project's own tokens, or the operator's admin token. */
  projectTokenOrAdmin: { security: [{ projectToken: [] }, { adminToken: [] }], middleware: [requireProjectTokenOrAdmin] },
  /** A `manage` token of the project, or the operator's admin token. */
  manageTokenOrAdmin: { security: [{ projectToken: MANAGE }, { adminToken: [] }], middleware: [requireManageTokenOrAdmin] },
  /** The operator's admin token. */
  admin: { security: [{ adminToken: [] }], middleware: [requireAdmin] },
  /** The admin token, on a route about the project :slug (404 if it does not exist). */
  adminForProject: { security: [{ adminToken: [] }], middleware: [requireAdmin, loadProject] },
  /** The account manager's own token (:am). */
  amToken: { security: [{ amToken: [] }], middleware: [requireAmToken] },
  /** A central contributor's token. */
  centralToken: { security: [{ centralToken: [] }], middleware: [requireCentralToken] },
  /** Public: the project :slug from KV; with the project's own token, fresh from D1. */
  publicProject: { middleware: [publicRead] },
  /** Public: the project :slug must exist. */
  publicProjectLedger: { middleware: [loadProject] },
  /** Public: the account manager :am must exist. */
  publicAccountManager: { middleware: [loadAccountManager] },
};

/**
 * The `security` (none for a public route) and `middleware` of a route: `who`'s check first,
 * then `then` (e.g. a content-type check that needs the caller known).
 */
export function access(who: Access, ...then: Middleware[]): Rule {
  const entry = ACCESS[who];
  return { ...(entry.security ? { security: entry.security } : {}), middleware: [...entry.middleware, ...then] };
}
