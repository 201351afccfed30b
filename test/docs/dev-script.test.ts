/** `npm run dev`: the port can be chosen, and the databases migrated are the ones wrangler.jsonc declares. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { d1Bindings, devArgs } from "../../scripts/dev";

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
