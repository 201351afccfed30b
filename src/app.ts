import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env";

const healthRoute = createRoute({
  method: "get",
  path: "/health",
  responses: {
    200: {
      description: "Service is up",
      content: {
        "application/json": {
          schema: z.object({ ok: z.literal(true) }),
        },
      },
    },
  },
});

export function buildApp() {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(healthRoute, (c) => c.json({ ok: true as const }, 200));
  return app;
}

export const app = buildApp();
