/**
 * `cobblestone-bridge audit …`: the one-shot audit's command line (audit.ts), with the bridge's
 * own sources of the database, the service and the token. One line on stdout per finding, then
 * a summary; exit 0 when there is none, 3 when there are findings, 2 when the audit could not be
 * made (75 when the service or the database was unavailable), 1 on a bug (exit-codes.ts).
 */
import { parseArgs } from "node:util";
import { CobblestoneApi } from "../service/api-client";
import { audit, FINDING_KINDS, type Finding } from "../write-back/audit";
import { BoincDb, redactDsn } from "../database/boinc-db";
import { MISSING_DB, MISSING_TOKEN, parseTime, secretsOf } from "./cli-options";
import { CreditCeilings, DEFAULT_MAX_GRANTED_CREDIT, type ValidatorCaps } from "../write-back/credit-bounds";
import { resolveDatabase } from "../database/db-source";
import { BridgeError, exitStatusOf, isTransient } from "../shared/errors";
import { EXIT } from "../shared/exit-codes";
import { checkedServiceUrl, cleartextWarning, isCleartextToNetwork } from "../service/service-url";
import { UNPAID_AFTER_SECONDS, storedSwitchPoint } from "../write-back/unpaid";

export const AUDIT_USAGE = `usage: cobblestone-bridge audit --url BASE_URL --project SLUG
         [--db mysql://USER:PASS@HOST:PORT/DB | --boinc-config PROJECT/config.xml] [--db-params PARAMS] [--secrets-file FILE]
         [--token TOKEN] [--allow-http] [--since TIME] [--until TIME] [--max-granted-credit CREDIT] [--help]
  Lists every valid result reported in [--since, --until) (default: from the switch point on)
  that is unpaid, paid outside BOINC's bounds, or paid differently from the service's grant.
  Exit status: 0 none, 3 some (one line each on stdout), 2 when the audit cannot be made
  (75 when the service or the database is unavailable: try again later).
  The token and the database come from the same places as for the bridge (--secrets-file, systemd's
  credentials, COBBLESTONE_TOKEN and BOINC_DB_URL); --db-params and --allow-http work as for it too.
  Details: docs/bridge.md.`;

/** Exit status when the audit found something. */
export const AUDIT_FOUND = EXIT.findings;

export interface AuditCliOptions {
  db: string;
  url: string;
  project: string;
  token: string;
  since: number | null;
  until: number | null;
  validatorCaps: ValidatorCaps;
}

/** The options, or null for --help (the usage is printed). */
export async function parseAuditOptions(argv: string[], env: NodeJS.ProcessEnv): Promise<AuditCliOptions | null> {
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
        since: { type: "string" },
        until: { type: "string" },
        "max-granted-credit": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new BridgeError(`${(e as Error).message}\n${AUDIT_USAGE}`);
  }
  if (values.help) return null;
  const secrets = await secretsOf(values, env);
  const token = secrets.token;
  // Reads only: the replica (config.xml's replica_db_*) serves, as for the bridge's read-only runs.
  const resolved = await resolveDatabase(secrets.db, secrets.boincConfig, env, false, values["db-params"]);
  const missing = [
    ...(resolved.dsn ? [] : [MISSING_DB]),
    ...(values.url ? [] : ["--url"]),
    ...(values.project ? [] : ["--project"]),
    ...(token ? [] : [MISSING_TOKEN]),
  ];
  if (missing.length > 0) throw new BridgeError(`missing ${missing.join(", ")}\n${AUDIT_USAGE}`);
  const maxText = values["max-granted-credit"];
  const maxGranted = maxText === undefined ? DEFAULT_MAX_GRANTED_CREDIT : Number(maxText);
  if (maxText !== undefined && !(maxText.trim() !== "" && Number.isFinite(maxGranted) && maxGranted >= 0)) {
    throw new BridgeError(
      `--max-granted-credit must be a credit of 0 or more (0: no cap, as BOINC's validator reads it), not '${maxText}'`,
    );
  }
  return {
    db: resolved.dsn!,
    url: checkedServiceUrl(values.url!, values["allow-http"]!),
    project: values.project!,
    token: token!,
    since: values.since === undefined ? null : parseTime(values.since),
    until: values.until === undefined ? null : parseTime(values.until, "--until"),
    validatorCaps: { byApp: resolved.validatorCaps, fallback: maxGranted },
  };
}

const iso = (t: number) => new Date(t * 1000).toISOString();

/** One finding as its line: the kind, the result, its app and workunit, then what is wrong. */
export function findingLine(f: Finding): string {
  return `${f.kind} result ${f.result_id} app ${f.app ?? "(unknown)"} workunit ${f.workunit_id}: ${f.detail}`;
}

/** Runs the audit; its exit status. `out` takes the findings and the summary, `err` the failure. */
export async function auditCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void = (l) => console.log(l),
  err: (line: string) => void = (l) => console.error(l),
): Promise<number> {
  let db: BoincDb | null = null;
  try {
    const options = await parseAuditOptions(argv, env);
    if (!options) {
      out(AUDIT_USAGE);
      return EXIT.ok;
    }
    if (isCleartextToNetwork(options.url)) err(`audit: ${cleartextWarning(options.url)}`);
    const api = new CobblestoneApi(options.url, options.project, options.token);
    const checked = api.check();
    checked.catch(() => undefined);
    db = await BoincDb.open(options.db);
    await db.checkSchema();
    await checked;
    const switchTime = await storedSwitchPoint(db.reader, options.project);
    if (switchTime === null) {
      throw new BridgeError(
        `the database ${redactDsn(options.db)} holds no switch point for '${options.project}': no --write-back run has made Cobblestone its credit of record, so the bridge was to pay nothing there`,
      );
    }
    const ceilings = new CreditCeilings(options.validatorCaps, await api.apps());
    const unnamed = options.validatorCaps.fallback > 0 ? options.validatorCaps.fallback : Infinity;
    const ceiling = (app: string | null) => (app === null ? unnamed : ceilings.of(app));
    const lowestCeiling = Math.min(unnamed, ...(await db.apps()).map((a) => ceilings.of(a.name)));
    const since = options.since ?? switchTime;
    const until = options.until ?? Number.MAX_SAFE_INTEGER;
    const report = await audit(db.reader, { switchTime, since, until, ceiling, lowestCeiling, found: (f) => out(findingLine(f)) });
    const total = FINDING_KINDS.reduce((n, k) => n + report.counts[k], 0);
    const window = `results reported from ${iso(since)}${options.until === null ? "" : ` to ${iso(until)}`} (switch point ${iso(switchTime)})`;
    const ids = report.ids ? `result ids ${report.ids.from} to ${report.ids.to}` : "no results";
    const kinds = FINDING_KINDS.map((k) => `${report.counts[k]} ${k}`).join(", ");
    const pending =
      report.pending > 0
        ? `; ${report.pending} validated in the last ${UNPAID_AFTER_SECONDS / 60} minutes and not paid yet (not findings: the bridge writes them next)`
        : "";
    out(`audit of '${options.project}': ${window}, ${ids}: ${total} finding${total === 1 ? "" : "s"} (${kinds})${pending}`);
    return total > 0 ? AUDIT_FOUND : EXIT.ok;
  } catch (e) {
    if (e instanceof BridgeError) {
      err(`audit: ${e.message}`);
      return exitStatusOf(e);
    }
    // The database's own errors (gone, refused a read): the audit could not be made, no bug.
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      err(`audit: the BOINC database failed during the audit (${code}: ${(e as Error).message}); nothing was judged past that point`);
      return isTransient(e) ? EXIT.unavailable : EXIT.needsHuman;
    }
    err(`audit: ${(e as Error).stack ?? String(e)}`);
    return EXIT.bug;
  } finally {
    await db?.close().catch(() => undefined);
  }
}
