/** The command line: `cobblestone-bridge --db … --url … --project … --token …`, in a checkout `npm run bridge -- …` (see docs/bridge.md). */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_MAX_GRANTED_CREDIT } from "../write-back/credit-bounds";
import { connectionSettings } from "../database/boinc-db";
import { parseModeOverrides } from "../database/credit-modes";
import { resolveDatabase, userOfDsn } from "../database/db-source";
import { BridgeError } from "../shared/errors";
import { LOG_FORMATS, type LogFormat } from "../telling/event-log";
import { type BridgeOptions, DEFAULT_RESCALE_EVERY } from "../running/run";
import { resolveSecrets } from "./secrets";
import { checkedServiceUrl } from "../service/service-url";
import { trickleSettings } from "../database/trickle-config";
import { BRIDGE_VERSION } from "../shared/version";

export const USAGE = `usage: cobblestone-bridge --url BASE_URL --project SLUG
         [--db mysql://USER:PASS@HOST:PORT/DB | --boinc-config PROJECT/config.xml] [--db-params PARAMS]
         [--secrets-file FILE] [--token TOKEN] [--allow-http] [--state FILE] [--since TIME] [--rewind TIME] [--rescale-every SECONDS]
         [--dry-run] [--compare OUT.csv] [--no-progress] [--write-back [--credit-by-app] [--switch-time TIME] [--project-account]]
         [--max-granted-credit CREDIT] [--credit-mode APP=MODE ...]
         [--trickle-variety VARIETY] [--trickle-max-runtime SECONDS] [--trickle-app APP]
         [--request-timeout SECONDS] [--request-attempts N] [--max-answer-mib MIB]
         [--follow [--poll-every SECONDS]] [--log-format text|json]
         [--metrics-port PORT [--metrics-host HOST]] [--metrics-file FILE.prom] [--help] [--version]
       cobblestone-bridge audit --url BASE_URL --project SLUG [...]: the audit (audit --help)
  Keep the secrets off the command line, where \`ps\` shows them: --secrets-file FILE (mode 600) with
  the lines COBBLESTONE_TOKEN=… and BOINC_DB_URL=…, or under systemd the credentials
  cobblestone-token, boinc-db-url and boinc-config.xml ($CREDENTIALS_DIRECTORY), or the
  environment variables COBBLESTONE_TOKEN and BOINC_DB_URL. Percent-encode the whole password
  in a URL (: / # @ % ? and space).
  TLS to the database: ?ssl-mode=VERIFY_CA&ssl-ca=/path/ca.pem
  in its URL, or --db-params 'ssl-mode=VERIFY_CA&ssl-ca=/path/ca.pem' (for --boinc-config's database too).
  Trickle credit: --trickle-variety and --trickle-max-runtime, or the trickle_credit daemon of --boinc-config.
  --url is https:// unless the service is on this machine (localhost, 127.x, ::1), or --allow-http.
  --write-back logs in as the account of --db or BOINC_DB_URL (one with the GRANTs of the switch-over
  checklist); with --boinc-config alone it refuses, unless --project-account says config.xml's db_user
  (the project's own account) is meant.
  Each app's credit mode comes from its validator's options in --boinc-config's <daemons>
  (--credit_from_wu: fixed, --post_assigned_credit: post_assigned, --credit_from_runtime: runtime,
  none of them: adaptive); --credit-mode APP=MODE, repeated per app, overrides it.
  In a checkout of Cobblestone: npm run bridge -- OPTIONS. Details: docs/bridge.md.`;

/** What the command line says beyond a run's options: how the bridge tells how it is doing. */
export interface CliOptions extends BridgeOptions {
  logFormat: LogFormat;
  /** --metrics-port (and --metrics-host): where GET /metrics answers. */
  metrics: { host: string; port: number } | null;
  /** --metrics-file: node_exporter's textfile collector reads it. */
  metricsFile: string | null;
}

/** --metrics-port listens here unless --metrics-host says otherwise: only this machine's monitor reads it. */
export const DEFAULT_METRICS_HOST = "127.0.0.1";

/** --follow polls the database this often by default. */
export const DEFAULT_POLL_SECONDS = 2;

/** Thrown for --help and --version: the CLI prints the message (the usage, the version) and exits 0. */
export class HelpRequested extends Error {}

/**
 * Unix seconds, or an ISO date with its zone such as 2024-01-31T00:00:00Z or …+02:00. A date
 * without a zone is refused: JavaScript reads it in this machine's time zone, while every time
 * the bridge takes is by the database's clock.
 */
export function parseTime(text: string, option = "--since"): number {
  const n = Number(text);
  if (text.trim() !== "" && Number.isFinite(n) && n >= 0) return Math.floor(n);
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new BridgeError(`${option}: '${text}' is neither Unix seconds nor an ISO date`);
  if (!/[T ]\d\d:\d\d(:\d\d(\.\d+)?)?\s*(Z|[+-]\d\d(:?\d\d)?)$/i.test(text.trim())) {
    throw new BridgeError(
      `${option}: '${text}' has no time zone, and times are by the database's clock: give the time with Z for UTC (such as 2024-01-31T00:00:00Z) or with an offset (such as 2024-01-31T02:00:00+02:00), or Unix seconds (SELECT UNIX_TIMESTAMP(); in the database)`,
    );
  }
  return Math.floor(ms / 1000);
}

/** Where state files live by default: outside any checkout, so a `git clean` or a new clone keeps the cursor. */
export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state"), "cobblestone");
}

/** `npm run` runs in the repository's root; a relative path means the directory the admin typed it in (INIT_CWD). */
export function userPath(path: string, env: NodeJS.ProcessEnv): string {
  return isAbsolute(path) ? path : resolve(env.INIT_CWD || process.cwd(), path);
}

/** --log-format, --metrics-port, --metrics-host, --metrics-file: checked, with one clear error each. */
function monitoring(
  values: { "log-format"?: string; "metrics-port"?: string; "metrics-host"?: string; "metrics-file"?: string },
  env: NodeJS.ProcessEnv,
): Pick<CliOptions, "logFormat" | "metrics" | "metricsFile"> {
  const format = values["log-format"] ?? "text";
  if (!(LOG_FORMATS as readonly string[]).includes(format)) throw new BridgeError(`--log-format must be text or json, not '${format}'`);
  const portText = values["metrics-port"];
  const port = Number(portText);
  if (portText !== undefined && !(/^\d+$/.test(portText) && port >= 1 && port <= 65535)) {
    throw new BridgeError(`--metrics-port must be a TCP port number from 1 to 65535, not '${portText}'`);
  }
  const host = values["metrics-host"];
  if (host !== undefined && portText === undefined)
    throw new BridgeError(`--metrics-host only means something with --metrics-port\n${USAGE}`);
  if (host !== undefined && host.trim() === "") throw new BridgeError("--metrics-host must name an address, such as 127.0.0.1 or ::1");
  const file = values["metrics-file"];
  if (file !== undefined && !file.endsWith(".prom")) {
    throw new BridgeError(`--metrics-file must end in .prom (node_exporter's textfile collector reads only *.prom files), not '${file}'`);
  }
  return {
    logFormat: format as LogFormat,
    metrics: portText === undefined ? null : { host: host ?? DEFAULT_METRICS_HOST, port },
    metricsFile: file === undefined ? null : userPath(file, env),
  };
}

/** --request-timeout, --request-attempts, --max-answer-mib: each request to the service (retrying-fetch.ts). */
function requestLimits(values: {
  "request-timeout"?: string;
  "request-attempts"?: string;
  "max-answer-mib"?: string;
}): Pick<BridgeOptions, "requestTimeoutMs" | "requestAttempts" | "maxAnswerBytes"> {
  const number = (option: string, text: string | undefined, ok: (n: number) => boolean, what: string): number | undefined => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (text.trim() === "" || !ok(n)) throw new BridgeError(`${option} must be ${what}, not '${text}'`);
    return n;
  };
  const seconds = number(
    "--request-timeout",
    values["request-timeout"],
    (n) => n >= 0.1 && n <= 3600,
    "a number of seconds from 0.1 to 3600",
  );
  const attempts = number(
    "--request-attempts",
    values["request-attempts"],
    (n) => Number.isInteger(n) && n >= 1 && n <= 100,
    "a whole number from 1 to 100",
  );
  // Above 256 MiB an answer's text nears V8's string limit (512 MiB) and takes gigabytes to parse.
  const mib = number("--max-answer-mib", values["max-answer-mib"], (n) => n >= 1 && n <= 256, "a number of MiB from 1 to 256");
  return {
    ...(seconds === undefined ? {} : { requestTimeoutMs: seconds * 1000 }),
    ...(attempts === undefined ? {} : { requestAttempts: attempts }),
    ...(mib === undefined ? {} : { maxAnswerBytes: Math.floor(mib * 1024 * 1024) }),
  };
}

/**
 * The write-back's account is a choice the admin makes (docs/bridge.md, "Switch-over checklist",
 * steps 2 and 5): the account of --db or BOINC_DB_URL, or with --boinc-config alone config.xml's
 * db_user (the project's own account, which may change anything in the database) only when
 * --project-account says so. Returns config.xml's db_user when the write-back logs in as it
 * (from config.xml, or a URL with that user): the run then warns.
 */
function chooseWriteBackAccount(
  resolved: { dsn: string | null; source: string | null; projectUser: string | null },
  projectAccountMeant: boolean,
): string | null {
  if (resolved.source === "config.xml" && !projectAccountMeant) {
    throw new BridgeError(
      `--write-back with --boinc-config and no --db or BOINC_DB_URL would write as config.xml's db_user${resolved.projectUser ? ` '${resolved.projectUser}'` : ""}, the project's own database account, which may change anything in the database. Give the write-back an account of its own, with the GRANTs of docs/bridge.md's "Switch-over checklist" (step 2), as BOINC_DB_URL (or --db): --boinc-config still gives <credit_by_app/> and the validators' caps. Or add --project-account to write back as config.xml's db_user knowingly (each run then warns).`,
    );
  }
  if (projectAccountMeant && resolved.source !== null && resolved.source !== "config.xml") {
    throw new BridgeError(
      `--project-account means the write-back logs in as config.xml's db_user (--boinc-config, no --db, no BOINC_DB_URL); here ${resolved.source} names the account: leave --project-account out\n${USAGE}`,
    );
  }
  if (resolved.source === "config.xml") return resolved.projectUser ?? "";
  const user = resolved.dsn === null ? null : userOfDsn(resolved.dsn);
  return resolved.projectUser !== null && user === resolved.projectUser ? user : null;
}

/** What a missing token or database says: every place it may come from. */
export const MISSING_DB = "--db (or BOINC_DB_URL, or --boinc-config)";
export const MISSING_TOKEN = "--token (or COBBLESTONE_TOKEN: in --secrets-file, the credential cobblestone-token or the environment)";

/** The token, the database URL and config.xml from the options, --secrets-file, systemd's credentials and the environment (secrets.ts). */
export function secretsOf(
  values: { token?: string; db?: string; "boinc-config"?: string; "secrets-file"?: string },
  env: NodeJS.ProcessEnv,
): ReturnType<typeof resolveSecrets> {
  return resolveSecrets(
    {
      token: values.token,
      db: values.db,
      boincConfig: values["boinc-config"] === undefined ? undefined : userPath(values["boinc-config"], env),
      secretsFile: values["secrets-file"] === undefined ? undefined : userPath(values["secrets-file"], env),
    },
    env,
  );
}

export async function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Promise<CliOptions> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        db: { type: "string" },
        "boinc-config": { type: "string" },
        "db-params": { type: "string" },
        url: { type: "string" },
        "allow-http": { type: "boolean", default: false },
        project: { type: "string" },
        token: { type: "string" },
        "secrets-file": { type: "string" },
        state: { type: "string" },
        since: { type: "string" },
        rewind: { type: "string" },
        "rescale-every": { type: "string" },
        "dry-run": { type: "boolean", default: false },
        compare: { type: "string" },
        "no-progress": { type: "boolean", default: false },
        "write-back": { type: "boolean", default: false },
        "credit-by-app": { type: "boolean", default: false },
        "switch-time": { type: "string" },
        "project-account": { type: "boolean", default: false },
        "max-granted-credit": { type: "string" },
        "credit-mode": { type: "string", multiple: true },
        "trickle-variety": { type: "string" },
        "trickle-max-runtime": { type: "string" },
        "trickle-app": { type: "string" },
        "request-timeout": { type: "string" },
        "request-attempts": { type: "string" },
        "max-answer-mib": { type: "string" },
        follow: { type: "boolean", default: false },
        "poll-every": { type: "string" },
        "log-format": { type: "string" },
        "metrics-port": { type: "string" },
        "metrics-host": { type: "string" },
        "metrics-file": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
        version: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new BridgeError(`${(e as Error).message}\n${USAGE}`);
  }
  if (values.help) throw new HelpRequested(USAGE);
  if (values.version) throw new HelpRequested(BRIDGE_VERSION);
  const told = monitoring(values, env);
  const limits = requestLimits(values);
  const writeBack = values["write-back"]!;
  const secrets = await secretsOf(values, env);
  const token = secrets.token;
  const resolved = await resolveDatabase(secrets.db, secrets.boincConfig, env, writeBack, values["db-params"]);
  const db = resolved.dsn;
  const trickles = trickleSettings(
    { variety: values["trickle-variety"], maxRuntime: values["trickle-max-runtime"], app: values["trickle-app"] },
    resolved.trickleDaemon,
  );
  if (values["credit-by-app"] && !writeBack) throw new BridgeError(`--credit-by-app only means something with --write-back\n${USAGE}`);
  const projectAccount = writeBack ? chooseWriteBackAccount(resolved, values["project-account"]!) : null;
  if (values["project-account"] && !writeBack) throw new BridgeError(`--project-account only means something with --write-back\n${USAGE}`);
  const missing = [
    ...(db ? [] : [MISSING_DB]),
    ...(values.url ? [] : ["--url"]),
    ...(values.project ? [] : ["--project"]),
    ...(token ? [] : [MISSING_TOKEN]),
  ];
  if (missing.length > 0) throw new BridgeError(`missing ${missing.join(", ")}\n${USAGE}`);
  const url = checkedServiceUrl(values.url!, values["allow-http"]!);
  // A parameter the bridge does not know, or a TLS file it cannot read, is told before anything starts.
  connectionSettings(db!);
  const maxText = values["max-granted-credit"];
  const maxGranted = maxText === undefined ? DEFAULT_MAX_GRANTED_CREDIT : Number(maxText);
  if (maxText !== undefined && !(maxText.trim() !== "" && Number.isFinite(maxGranted) && maxGranted >= 0)) {
    throw new BridgeError(
      `--max-granted-credit must be a credit of 0 or more (0: no cap, as BOINC's validator reads it), not '${maxText}'`,
    );
  }
  // A live project's own cron rescales it: --follow replays no rescale schedule unless told.
  const rescaleEvery =
    values["rescale-every"] === undefined ? (values.follow ? 0 : DEFAULT_RESCALE_EVERY) : Number(values["rescale-every"]);
  const pollSeconds = values["poll-every"] === undefined ? DEFAULT_POLL_SECONDS : Number(values["poll-every"]);
  if (!(pollSeconds > 0 && pollSeconds <= 3600))
    throw new BridgeError(`--poll-every must be a number of seconds from 0.1 to 3600, not '${values["poll-every"]}'`);
  if (values["poll-every"] !== undefined && !values.follow)
    throw new BridgeError(`--poll-every only means something with --follow\n${USAGE}`);
  if (!Number.isInteger(rescaleEvery) || rescaleEvery < 0) {
    throw new BridgeError(`--rescale-every must be a whole number of seconds (0: never), not '${values["rescale-every"]}'`);
  }
  return {
    db: db!,
    url,
    project: values.project!,
    token: token!,
    stateFile: values.state === undefined ? join(defaultStateDir(env), `bridge-${values.project}.json`) : userPath(values.state, env),
    since: values.since === undefined ? null : parseTime(values.since),
    rewind: values.rewind === undefined ? null : parseTime(values.rewind, "--rewind"),
    rescaleEvery,
    validatorCaps: { byApp: resolved.validatorCaps, fallback: maxGranted },
    creditModes: { config: resolved.creditModes, overrides: parseModeOverrides(values["credit-mode"] ?? []) },
    dryRun: values["dry-run"]!,
    compare: values.compare === undefined ? null : userPath(values.compare, env),
    // A progress line is no JSON line: with --log-format json the request events tell the progress.
    progress: !values["no-progress"] && told.logFormat === "text",
    ...told,
    ...limits,
    ...(values.follow ? { follow: { pollSeconds } } : {}),
    ...(trickles ? { trickles } : {}),
    ...(writeBack
      ? {
          writeBack,
          creditByApp: values["credit-by-app"]! || resolved.creditByApp,
          switchTime: values["switch-time"] === undefined ? null : parseTime(values["switch-time"], "--switch-time"),
          projectAccount,
        }
      : {}),
  };
}
