/**
 * The OpenAPI document (hono-open-api-starter's `configureOpenAPI`), served at /openapi.json:
 * the errors every route answers added to each route's declaration, the token schemes, and the
 * document's header. Called once every route is mounted, since it reads their declarations.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { declareCommonErrors } from "./common-errors";

export function configureOpenApi(app: OpenAPIHono<AppEnv>): void {
  declareCommonErrors(app);
  app.openAPIRegistry.registerComponent("securitySchemes", "projectToken", {
    type: "http",
    scheme: "bearer",
    description:
      "A project's token, for its own slug only. Its scope is 'ingest' or 'manage' (docs/tokens-and-audit.md#scopes): an operation whose " +
      "requirement lists no role takes either; one that lists 'manage' refuses an 'ingest' token (403 insufficient_scope).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "amToken", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "centralToken", { type: "http", scheme: "bearer" });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Cobblestone",
      version: "1",
      description: "BOINC's credit and accounting system (CreditNew) as a service.",
    },
  });
}
