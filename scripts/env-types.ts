/**
 * `npm run types`: writes worker-configuration.d.ts, the types of the Worker's bindings, from
 * wrangler.jsonc with `wrangler types` (offline: no banner, so no update check). src/env.ts
 * builds `Env` on it; test/docs/env-types.test.ts fails when the committed file is stale.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ENV_TYPES_FILE = "worker-configuration.d.ts";
const root = fileURLToPath(new URL("..", import.meta.url));

/** `wrangler types`' arguments: the bindings only (the runtime's types come from @cloudflare/workers-types). */
export function envTypesArgs(path: string): string[] {
  return ["types", path, "--include-runtime=false", "--env-interface", "CloudflareBindings"];
}

/** Writes the bindings' types to `path` (relative to the repository's root). */
export function generateEnvTypes(path: string = ENV_TYPES_FILE): void {
  execFileSync(fileURLToPath(new URL("../node_modules/.bin/wrangler", import.meta.url)), envTypesArgs(path), {
    cwd: root,
    stdio: "pipe",
    env: { ...process.env, WRANGLER_HIDE_BANNER: "true", WRANGLER_SEND_METRICS: "false" },
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  generateEnvTypes();
  console.log(`wrote ${ENV_TYPES_FILE}`);
}
