/**
 * `npm run predeploy` (npm runs it before `npm run deploy`): applies the migrations to every D1
 * database wrangler.jsonc binds, remotely, so a Worker never runs on a database without its
 * tables. Adding a database to wrangler.jsonc is enough for it to be migrated.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { d1Bindings } from "./dev";

/** One `wrangler d1 migrations apply <binding> --remote` per D1 binding of wrangler.jsonc. */
export function migrationCommands(wranglerJsonc: string): string[][] {
  return d1Bindings(wranglerJsonc).map((binding) => ["d1", "migrations", "apply", binding, "--remote"]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = new URL("..", import.meta.url);
  const wrangler = fileURLToPath(new URL("node_modules/.bin/wrangler", root));
  for (const args of migrationCommands(readFileSync(new URL("wrangler.jsonc", root), "utf8"))) {
    console.log(`wrangler ${args.join(" ")}`);
    // CI=1: apply without asking (the deploy is the confirmation).
    execFileSync(wrangler, args, { cwd: root, stdio: "inherit", env: { ...process.env, CI: "1" } });
  }
}
