/**
 * `npm run dev [-- wrangler dev options]`: applies the local migrations of every D1 database
 * wrangler.jsonc declares (so removing the optional DB_LARGE does not break it), then starts
 * `wrangler dev` with the local admin token, on port 8787 unless `--port` is given. Each
 * database's migrations print one line (wrangler reprints its whole status table after each
 * migration: thousands of lines on a first start); once the Worker answers, it prints the URL
 * to use as $B and the one that runs the crons on that port (`wrangler dev` fires none).
 *
 * Before anything, it checks the variables wrangler dev would hand the Worker (wrangler.jsonc
 * `vars`, .dev.vars or .env, `--var`) with the Worker's own schema (src/env-vars.ts): a bad one
 * stops it with the Worker's message, naming the variable, instead of a Worker that answers 500.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseEnv as parseDotenv } from "node:util";
import { parseSettings } from "../src/env-vars";

export const DEFAULT_PORT = 8787;
export const LOCAL_ADMIN_TOKEN = "local-admin-token";

interface WranglerConfig {
  d1_databases?: { binding: string }[];
  vars?: Record<string, unknown>;
  env?: Record<string, { vars?: Record<string, unknown> }>;
}

/** A wrangler.jsonc, its `//` comment lines stripped. */
function readConfig(wranglerJsonc: string): WranglerConfig {
  return JSON.parse(wranglerJsonc.replace(/^\s*\/\/.*$/gm, "")) as WranglerConfig;
}

/** The D1 bindings a wrangler.jsonc declares. */
export function d1Bindings(wranglerJsonc: string): string[] {
  return (readConfig(wranglerJsonc).d1_databases ?? []).map((d) => d.binding);
}

/** The values of an option that wrangler reads as an array (`--var A:1 B:2`, `--var=A:1`), and of `--env`. */
function optionValues(args: readonly string[], names: readonly string[]): string[] {
  const values: string[] = [];
  args.forEach((a, i) => {
    const eq = names.find((n) => a.startsWith(`${n}=`));
    if (eq) values.push(a.slice(eq.length + 1));
    else if (names.includes(a)) for (let j = i + 1; j < args.length && !args[j]!.startsWith("-"); j++) values.push(args[j]!);
  });
  return values;
}

/**
 * What `wrangler dev` with these arguments hands the Worker as variables, from the same places
 * in the same order (a later one wins): wrangler.jsonc `vars` (an `--env`'s own, which are not
 * inherited), then .dev.vars (.dev.vars.<env> first) or, without one, .env and .env.local (and
 * their .<env> forms; off with CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV=false), then `--var KEY:VALUE`.
 */
export function devVars(root: URL, args: readonly string[], processEnv: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  const config = readConfig(readFileSync(new URL("wrangler.jsonc", root), "utf8"));
  const env = optionValues(args, ["--env", "-e"]).at(-1);
  const vars: Record<string, unknown> = { ...(env === undefined ? config.vars : config.env?.[env]?.vars) };
  const file = (name: string) => (existsSync(new URL(name, root)) ? parseDotenv(readFileSync(new URL(name, root), "utf8")) : undefined);
  const devVarsFile = (env === undefined ? undefined : file(`.dev.vars.${env}`)) ?? file(".dev.vars");
  if (devVarsFile) Object.assign(vars, devVarsFile);
  else if (processEnv.CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV !== "false") {
    const names = [".env", ".env.local", ...(env === undefined ? [] : [`.env.${env}`, `.env.${env}.local`])];
    for (const name of names) Object.assign(vars, file(name));
  }
  for (const pair of optionValues(args, ["--var"])) {
    const [key, ...value] = pair.split(":");
    vars[key!] = value.join(":");
  }
  return vars;
}

/** The variables' problems, in the Worker's words (src/env-vars.ts); none when they parse. */
export function devVarProblems(vars: Readonly<Record<string, unknown>>): string[] {
  const parsed = parseSettings(vars);
  return parsed.ok ? [] : parsed.problems;
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
  const args = devArgs(process.argv.slice(2));
  const problems = devVarProblems(devVars(root, args));
  if (problems.length > 0) {
    for (const problem of problems) console.error(problem);
    console.error(
      "npm run dev stopped before starting wrangler: fix the variable in .dev.vars, wrangler.jsonc `vars` or --var (docs/operations.md#configuration).",
    );
    process.exit(1);
  }
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
  const child = spawn("wrangler", args, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
  void announceWhenReady(devPort(args), () => child.exitCode === null && child.signalCode === null);
}
