export type Env = {
  DB: D1Database;
  KV: KVNamespace;
  ADMIN_TOKEN?: string;
};

/** Hono generics for this Worker: `new OpenAPIHono<AppEnv>()`. */
export type AppEnv = { Bindings: Env };
