import type { Db } from "./db/client";
import type { centralContributors, projects } from "./db/schema";

export type Env = {
  DB: D1Database;
  KV: KVNamespace;
  /** Secret for the admin API (`wrangler secret put ADMIN_TOKEN`). */
  ADMIN_TOKEN?: string;
};

export type Project = typeof projects.$inferSelect;
export type CentralContributor = typeof centralContributors.$inferSelect;

/** Hono generics for this Worker: `new OpenAPIHono<AppEnv>()`. */
export type AppEnv = {
  Bindings: Env;
  Variables: { db: Db; project: Project; contributor: CentralContributor };
};
