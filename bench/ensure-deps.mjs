// better-sqlite3 is needed only by `npm run bench` (the storage-limit run). It compiles from
// source here (about two minutes), so it is installed on first use instead of by `npm ci`,
// which keeps the test suite's install fast. The version is pinned.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";

const VERSION = "12.11.1";
const require = createRequire(import.meta.url);
try {
  const installed = require("better-sqlite3/package.json").version;
  if (installed !== VERSION) throw new Error(`better-sqlite3 ${installed}, want ${VERSION}`);
} catch {
  console.log(`Installing better-sqlite3@${VERSION} for the benchmarks (not saved to package.json; compiles, ~2 min)…`);
  execFileSync("npm", ["install", "--no-save", `better-sqlite3@${VERSION}`], { stdio: "inherit" });
}
