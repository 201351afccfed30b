/**
 * The service's /openapi.json, answered by the app itself in this process (no `wrangler dev`,
 * no database: the document is built from the routes' zod schemas alone). Used by
 * `npm run bridge:types` and by the check that bridge/service/generated/api-types.ts is current
 * (test/docs/api-types.test.ts).
 */

/** What this needs of src/app.ts (imported by path, so that Node-typed code does not typecheck the Worker's). */
interface AppModule {
  createApp(): { request(path: string, init: RequestInit, env: unknown): Response | Promise<Response> };
}

/**
 * The app answers nothing without its DB and KV bindings (src/env.ts checks them on every
 * request); the document reads neither, so these only exist, and fail if anything calls them.
 */
function unusedBindings(): Record<string, Record<string, () => never>> {
  const unused = (name: string) => () => {
    throw new Error(`${name} is not available while the OpenAPI document is built`);
  };
  return {
    DB: { prepare: unused("DB"), batch: unused("DB"), exec: unused("DB") },
    KV: { get: unused("KV"), put: unused("KV"), list: unused("KV"), delete: unused("KV") },
  };
}

export async function openApiDocument(): Promise<unknown> {
  const appModule = new URL("../src/app.ts", import.meta.url).href;
  const { createApp } = (await import(appModule)) as AppModule;
  const res = await createApp().request("/openapi.json", {}, unusedBindings());
  if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
  return res.json();
}
