/**
 * `npm run dev`: the port can be chosen, the databases migrated are the ones wrangler.jsonc
 * declares, and a bad variable stops it before wrangler starts, in the Worker's own words.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { d1Bindings, devArgs, devVarProblems, devVars } from "../../scripts/dev";

const wrangler = readFileSync(new URL("../../wrangler.jsonc", import.meta.url), "utf8");
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));

describe("npm run dev", () => {
  it("runs scripts/dev.ts, which takes the admin's --port instead of 8787", () => {
    expect(pkg.scripts.dev).toBe("tsx scripts/dev.ts");
    expect(devArgs([])).toEqual(["dev", "--port", "8787", "--var", "ADMIN_TOKEN:local-admin-token"]);
    const custom = devArgs(["--port", "8791"]);
    expect(custom.filter((a) => a === "--port")).toHaveLength(1);
    expect(custom.slice(-2)).toEqual(["--port", "8791"]);
    expect(devArgs(["--port=8791"]).filter((a) => a.startsWith("--port"))).toEqual(["--port=8791"]);
  });

  it("migrates every D1 database of wrangler.jsonc, and only those: DB_LARGE may be removed", () => {
    expect(d1Bindings(wrangler)).toEqual(["DB", "DB_LARGE"]);
    const config = JSON.parse(wrangler.replace(/^\s*\/\/.*$/gm, ""));
    config.d1_databases = config.d1_databases.filter((d: { binding: string }) => d.binding !== "DB_LARGE");
    expect(d1Bindings(JSON.stringify(config))).toEqual(["DB"]);
  });
});

describe("npm run dev checks the variables with the Worker's schema (src/env-vars.ts)", () => {
  it("reads them where wrangler dev does: wrangler.jsonc vars, then .dev.vars (else .env), then --var", () => {
    const dir = mkdtempSync(join(tmpdir(), "cobblestone-dev-vars-"));
    const root = pathToFileURL(`${dir}/`);
    const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
    try {
      write("wrangler.jsonc", '{\n  // a comment\n  "vars": { "AUDIT_RETENTION_DAYS": 30, "RATE_LIMIT_PER_PERIOD": "7" }\n}\n');
      write(".dev.vars", "RATE_LIMIT_PER_PERIOD=9\nAM_RPC_RETENTION_DAYS=abc\n");
      write(".env", "AUDIT_RETENTION_DAYS=oops\n");
      // .dev.vars over wrangler.jsonc; .env unread beside a .dev.vars; the JSON number kept as one.
      const fromFiles = devVars(root, devArgs([]), {});
      expect(fromFiles).toEqual({
        AUDIT_RETENTION_DAYS: 30,
        RATE_LIMIT_PER_PERIOD: "9",
        AM_RPC_RETENTION_DAYS: "abc",
        ADMIN_TOKEN: "local-admin-token",
      });
      expect(devVarProblems(fromFiles)).toEqual(['AM_RPC_RETENTION_DAYS: expected a whole number of days ≥ 1, got "abc"']);
      // --var last: it mends the bad one.
      const mended = devVars(root, devArgs(["--var", "AM_RPC_RETENTION_DAYS:5"]), {});
      expect(mended.AM_RPC_RETENTION_DAYS).toBe("5");
      expect(devVarProblems(mended)).toEqual([]);
      // Without a .dev.vars, .env is read (unless wrangler is told not to).
      rmSync(join(dir, ".dev.vars"));
      expect(devVarProblems(devVars(root, devArgs([]), {}))).toEqual([
        'AUDIT_RETENTION_DAYS: expected a whole number of days ≥ 1, got "oops"',
      ]);
      expect(devVarProblems(devVars(root, devArgs([]), { CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: "false" }))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a bad variable stops it before the migrations and wrangler, naming the variable", () => {
    const root = new URL("../../", import.meta.url);
    // No wrangler on PATH: were the check to let it through, the migrations would fail, not start anything.
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", "scripts/dev.ts", "--var", "AUDIT_RETENTION_DAYS:abc", "--var", "ADMIN_TOKEN:not a token"],
      { cwd: root, encoding: "utf8", timeout: 120_000, env: { ...process.env, PATH: dirname(process.execPath) } },
    );
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain('AUDIT_RETENTION_DAYS: expected a whole number of days ≥ 1, got "abc"');
    expect(run.stderr).toContain("ADMIN_TOKEN: contains whitespace");
    expect(run.stderr).not.toContain("not a token");
    expect(run.stderr).toContain("npm run dev stopped before starting wrangler");
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/migrations/);
  });
});
