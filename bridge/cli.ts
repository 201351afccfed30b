/** `cobblestone-bridge …` (in a checkout `npm run bridge -- …`): feeds Cobblestone from a BOINC project's database (docs/bridge.md). */
import { HelpRequested, parseOptions } from "./cli-options";
import { BridgeError } from "./errors";
import { runBridge } from "./run";
import { summary } from "./summary";

const when = (t: number) => (t > 0 ? `${new Date(t * 1000).toISOString()} (mod_time ${t})` : "the beginning");

const interrupt = new AbortController();
const stop = (what: string) => () => {
  if (interrupt.signal.aborted) {
    // A second Ctrl-C: the state file holds only answered seconds, so leaving now is safe.
    console.error("bridge: stopped; run the same command again to resume");
    process.exit(130);
  }
  console.error(`bridge: ${what}: finishing the request in flight (${what} again to leave at once)`);
  interrupt.abort();
};
process.on("SIGINT", stop("Ctrl-C"));
// systemd and kill stop a --follow run with SIGTERM.
process.on("SIGTERM", stop("SIGTERM"));

try {
  const options = await parseOptions(process.argv.slice(2), process.env);
  const report = await runBridge({ ...options, signal: interrupt.signal });
  console.log(summary(report, options.dryRun));
  // A --follow run has no end but a stop: stopped cleanly, it is done.
  if (report.interrupted && !options.follow) {
    console.error(
      `bridge: interrupted; everything up to ${when(report.cursor.mod_time)} is posted and saved in ${options.stateFile}; run the same command again to resume`,
    );
    process.exit(130);
  }
} catch (e) {
  if (e instanceof HelpRequested) {
    console.log(e.message);
    process.exit(0);
  }
  if (e instanceof BridgeError) {
    console.error(`bridge: ${e.message}`);
    process.exit(2);
  }
  throw e;
}
