/** The project's apps and app versions, from the database to the service (or, in a dry run, compared with it). */
import type { CobblestoneApi } from "./api-client";
import type { AppRow, BoincDb } from "./boinc-db";
import type { CreditMode, FoundMode } from "./credit-modes";
import { BridgeError } from "./errors";
import type { EventLog } from "./event-log";
import type { KnownVersions } from "./events";
import { eachLimited } from "./holders";

/**
 * Apps and versions as the database has them, registered (PUT, idempotent) unless a dry run; a dry
 * run compares them with the service's instead. `apps`: the database's apps, as the run read them
 * (it keeps them for the credit ceilings); `modes`: the credit mode each is registered with, where
 * config.xml or --credit-mode states one (credit-modes.ts; an app without keeps the service's).
 */
export async function registerApps(
  db: BoincDb,
  apps: AppRow[],
  api: CobblestoneApi,
  dryRun: boolean,
  log: (line: string) => void,
  modes: ReadonlyMap<string, FoundMode> = new Map(),
): Promise<KnownVersions> {
  const versions = await db.appVersions();
  if (dryRun) {
    const [known, knownVersions] = await Promise.all([api.apps(), api.appVersions()]);
    const registered = new Map(knownVersions.map((v) => [v.id, v.app]));
    const clashes = versions.filter((v) => registered.has(v.id) && registered.get(v.id) !== v.app);
    if (clashes.length > 0) {
      throw new BridgeError(
        `the service has app versions under other apps than the database (a run would be refused, 409):\n  ` +
          clashes.map((v) => `app version ${v.id}: '${registered.get(v.id)}' there, '${v.app}' here`).join("\n  "),
      );
    }
    const newApps = apps.filter((a) => !known.some((k) => k.name === a.name)).length;
    const newVersions = versions.filter((v) => !registered.has(v.id)).length;
    log(`would register ${apps.length} apps (${newApps} new) and ${versions.length} app versions (${newVersions} new)`);
  } else {
    await eachLimited(apps, 8, async (a) => {
      const mode = modes.get(a.name)?.mode;
      await api.putApp(a.name, {
        host_scale_check: a.host_scale_check !== 0,
        ...(mode === undefined ? {} : { credit_mode: mode }),
        ...(a.target_nresults > 0 ? { target_nresults: a.target_nresults } : {}),
      });
    });
    await eachLimited(versions, 8, async (v) => {
      await api.putAppVersion(v.id, { app: v.app, platform: v.platform, plan_class: v.plan_class ?? "", version_num: v.version_num });
    });
  }
  return new Map(versions.map((v) => [v.id, v.app]));
}

/**
 * One event per app at the start: the credit mode it is paid by and where that was said. The text
 * log shows the apps whose mode config.xml or --credit-mode states other than adaptive (CreditNew,
 * what the bridge always paid); the JSON log every app. With --write-back, an app whose validator
 * config.xml shows without --no_credit is a warning: BOINC still grants it, and the write-back
 * refuses its results (write-back-refusals.ts).
 */
export function tellModes(
  apps: readonly { name: string }[],
  stated: ReadonlyMap<string, FoundMode>,
  serviceModes: ReadonlyMap<string, CreditMode>,
  writeBack: boolean,
  emit: EventLog,
): void {
  for (const { name } of apps) {
    const found = stated.get(name);
    const mode = found?.mode ?? serviceModes.get(name) ?? "adaptive";
    const source = found?.source ?? "the service's setting (no validator of it in config.xml, no --credit-mode)";
    const grants = writeBack && found?.noCredit === false;
    emit({
      level: grants ? "warn" : "info",
      event: "credit_mode",
      msg:
        `app '${name}': credit mode ${mode}, from ${source}` +
        (grants
          ? "; its validator runs without --no_credit, so BOINC still grants it: add --no_credit (switch-over checklist, step 4)"
          : ""),
      fields: {
        app: name,
        mode,
        source: found ? (found.source === "--credit-mode" ? "--credit-mode" : "config.xml") : "service",
        no_credit: found?.noCredit ?? null,
      },
      jsonOnly: !grants && (found === undefined || mode === "adaptive"),
    });
  }
}
