/** The command line: `npm run bridge -- --db … --url … --project … --token …` (see docs/bridge.md). */
import { parseArgs } from "node:util";
import { BridgeError } from "./errors";
import { type BridgeOptions, DEFAULT_RESCALE_EVERY } from "./run";

export const USAGE = `usage: npm run bridge -- --db mysql://USER:PASS@HOST:PORT/DB --url BASE_URL --project SLUG
         [--token TOKEN] [--state FILE] [--since TIME] [--rescale-every SECONDS] [--dry-run]
         [--compare OUT.csv] [--no-progress]
  The token may come from COBBLESTONE_TOKEN instead of --token.`;


/** Unix seconds, or an ISO date such as 2024-01-31T00:00:00Z. */
export function parseTime(text: string): number {
  const n = Number(text);
  if (text.trim() !== "" && Number.isFinite(n) && n >= 0) return Math.floor(n);
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new BridgeError(`--since: '${text}' is neither Unix seconds nor an ISO date`);
  return Math.floor(ms / 1000);
}

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): BridgeOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        db: { type: "string" },
        url: { type: "string" },
        project: { type: "string" },
        token: { type: "string" },
        state: { type: "string" },
        since: { type: "string" },
        "rescale-every": { type: "string" },
        "dry-run": { type: "boolean", default: false },
        compare: { type: "string" },
        "no-progress": { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new BridgeError(`${(e as Error).message}\n${USAGE}`);
  }
  const token = values.token ?? env.COBBLESTONE_TOKEN;
  const missing = [
    ...(values.db ? [] : ["--db"]),
    ...(values.url ? [] : ["--url"]),
    ...(values.project ? [] : ["--project"]),
    ...(token || values["dry-run"] ? [] : ["--token (or COBBLESTONE_TOKEN)"]),
  ];
  if (missing.length > 0) throw new BridgeError(`missing ${missing.join(", ")}\n${USAGE}`);
  try {
    new URL(values.url!);
  } catch {
    throw new BridgeError(`--url '${values.url}' is not a URL (e.g. https://cobblestone.example.org)`);
  }
  const rescaleEvery = values["rescale-every"] === undefined ? DEFAULT_RESCALE_EVERY : Number(values["rescale-every"]);
  if (!Number.isInteger(rescaleEvery) || rescaleEvery < 0) {
    throw new BridgeError(`--rescale-every must be a whole number of seconds (0: never), not '${values["rescale-every"]}'`);
  }
  return {
    db: values.db!,
    url: values.url!,
    project: values.project!,
    token: token ?? "",
    stateFile: values.state ?? `cobblestone-bridge-${values.project}.json`,
    since: values.since === undefined ? null : parseTime(values.since),
    rescaleEvery,
    dryRun: values["dry-run"]!,
    compare: values.compare ?? null,
    progress: !values["no-progress"],
  };
}
