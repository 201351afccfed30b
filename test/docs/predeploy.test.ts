/** `npm run predeploy` migrates, remotely, every D1 database wrangler.jsonc binds, and only those. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { migrationCommands } from "../../scripts/predeploy";

const wrangler = readFileSync(new URL("../../wrangler.jsonc", import.meta.url), "utf8");
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
const config = JSON.parse(wrangler.replace(/^\s*\/\/.*$/gm, "")) as { d1_databases: { binding: string }[] };

describe("npm run predeploy", () => {
  it("runs before npm run deploy, with scripts/predeploy.ts", () => {
    expect(pkg.scripts.deploy).toBe("wrangler deploy");
    expect(pkg.scripts.predeploy).toBe("tsx scripts/predeploy.ts");
  });

  it("applies the migrations remotely to each D1 binding of wrangler.jsonc", () => {
    const bindings = config.d1_databases.map((d) => d.binding);
    expect(bindings.length).toBeGreaterThan(1);
    expect(migrationCommands(wrangler)).toEqual(bindings.map((b) => ["d1", "migrations", "apply", b, "--remote"]));
  });

  it("follows wrangler.jsonc: a database added is migrated, one removed is not", () => {
    const more = { ...config, d1_databases: [...config.d1_databases, { binding: "DB_THIRD", database_name: "third", database_id: "x" }] };
    expect(migrationCommands(JSON.stringify(more)).map((args) => args[3])).toEqual([
      ...config.d1_databases.map((d) => d.binding),
      "DB_THIRD",
    ]);
    const one = { ...config, d1_databases: config.d1_databases.slice(0, 1) };
    expect(migrationCommands(JSON.stringify(one))).toEqual([["d1", "migrations", "apply", "DB", "--remote"]]);
    expect(migrationCommands(JSON.stringify({ name: "x" }))).toEqual([]);
  });
});
