/**
 * `npm run dev [-- wrangler dev options]`: applies the local migrations of every D1 database
 * wrangler.jsonc declares (so removing the optional DB_LARGE does not break it), then starts
 * `wrangler dev` with the local admin token, on port 8787 unless `--port` is given.
 */
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

export const DEFAULT_PORT = 8787;
export const LOCAL_ADMIN_TOKEN = "local-admin-token";

/** The D1 bindings a wrangler.jsonc declares (its `//` comment lines stripped). */
export function d1Bindings(wranglerJsonc: string): string[] {
  const config = JSON.parse(wranglerJsonc.replace(/^\s*\/\/.*$/gm, "")) as { d1_databases?: { binding: string }[] };
  return (config.d1_databases ?? []).map((d) => d.binding);
}

/** `wrangler dev`'s arguments: the admin's own options last, the default port only if they give none. */
export function devArgs(argv: readonly string[]): string[] {
  const hasPort = argv.some((a) => a === "--port" || a.startsWith("--port="));
  return ["dev", ...(hasPort ? [] : ["--port", String(DEFAULT_PORT)]), "--var", `ADMIN_TOKEN:${LOCAL_ADMIN_TOKEN}`, ...argv];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = new URL("..", import.meta.url);
  for (const binding of d1Bindings(readFileSync(new URL("wrangler.jsonc", root), "utf8"))) {
    execFileSync("wrangler", ["d1", "migrations", "apply", binding, "--local"], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, CI: "1" },
    });
  }
  const child = spawn("wrangler", devArgs(process.argv.slice(2)), {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
}
