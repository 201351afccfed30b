/** `npm run bridge -- …`: feeds Cobblestone from a BOINC project's database (docs/bridge.md). */
import { parseOptions } from "./cli-options";
import { BridgeError } from "./errors";
import { runBridge } from "./run";

try {
  const options = parseOptions(process.argv.slice(2), process.env);
  const report = await runBridge(options);
  const what = options.dryRun ? "would post" : "posted";
  console.log(
    `${what} ${report.results} results in ${report.passes} passes, ${report.errors} error reports and ${report.rescales} rescales; ` +
      `${report.holders} hosts/users/teams registered, ${report.skipped} results skipped; ${report.elapsed_s.toFixed(1)} s`,
  );
} catch (e) {
  if (e instanceof BridgeError) {
    console.error(`bridge: ${e.message}`);
    process.exit(2);
  }
  throw e;
}
