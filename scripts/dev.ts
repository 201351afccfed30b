/**
 * `npm run dev [-- wrangler dev options]`: applies the local migrations of every D1 database
 * wrangler.jsonc declares (so removing the optional DB_LARGE does not break it), then starts
 * `wrangler dev` with the local admin token, on port 8787 unless `--port` is given. Each
 * database's migrations print one line (wrangler reprints its whole status table after each
 * migration: thousands of lines on a first start); once the Worker answers, it prints the URL
 * to use as $B and the one that runs the crons on that port (`wrangler dev` fires none).
 */
import { spawn, spawnSync } from "node:child_process";
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

/** The port `wrangler dev` will listen on, from its arguments (as devArgs builds them). */
export function devPort(args: readonly string[]): number {
  let port = DEFAULT_PORT;
  args.forEach((a, i) => {
    if (a === "--port" && args[i + 1] !== undefined) port = Number(args[i + 1]);
    else if (a.startsWith("--port=")) port = Number(a.slice("--port=".length));
  });
  return port;
}

/**
 * One line for a database from what `wrangler d1 migrations apply` printed: how many
 * migrations it applied (each is marked ✅ in the status table it reprints), or none.
 */
export function migrationSummary(binding: string, output: string): string {
  if (/No migrations to apply/.test(output)) return `${binding}: no migrations to apply (up to date)`;
  const applied = new Set([...output.matchAll(/(\d{4}_[\w-]+\.sql)\s*│\s*✅/g)].map((m) => m[1]));
  return `${binding}: applied ${applied.size} migration${applied.size === 1 ? "" : "s"}`;
}

/** What to print once the Worker answers on `port`. */
export function readyLines(port: number): string[] {
  const base = `http://localhost:${port}`;
  return [
    `Cobblestone is ready: B=${base} (docs/walkthrough.md)`,
    `Run the crons on this port (wrangler dev fires none): curl -s ${base}/cdn-cgi/handler/scheduled`,
  ];
}

async function announceWhenReady(port: number, running: () => boolean): Promise<void> {
  while (running()) {
    try {
      await fetch(`http://localhost:${port}/health`);
      for (const line of readyLines(port)) console.log(line);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500)); // not listening yet
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = new URL("..", import.meta.url);
  for (const binding of d1Bindings(readFileSync(new URL("wrangler.jsonc", root), "utf8"))) {
    const applied = spawnSync("wrangler", ["d1", "migrations", "apply", binding, "--local"], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, CI: "1" },
    });
    const output = `${applied.stdout ?? ""}${applied.stderr ?? ""}`;
    if (applied.status !== 0) {
      process.stderr.write(output);
      console.error(
        `${binding}: the migrations failed (wrangler exited with ${applied.status ?? applied.signal ?? applied.error?.message})`,
      );
      process.exit(1);
    }
    console.log(migrationSummary(binding, output));
  }
  const args = devArgs(process.argv.slice(2));
  const child = spawn("wrangler", args, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
  void announceWhenReady(devPort(args), () => child.exitCode === null && child.signalCode === null);
}
