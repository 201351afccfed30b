/** The project's apps and app versions, from the database to the service (or, in a dry run, compared with it). */
import type { CobblestoneApi } from "./api-client";
import type { AppRow, BoincDb } from "../database/boinc-db";
import { BridgeError } from "../shared/errors";
import type { KnownVersions } from "./second-calls";
import { eachLimited } from "./holders";

/** Apps and versions as the database has them, registered (PUT, idempotent) unless a dry run; a dry run compares them with the service's instead. */
/** `apps`: the database's apps, as the run read them (it keeps them for the credit ceilings). */
export async function registerApps(
  db: BoincDb,
  apps: AppRow[],
  api: CobblestoneApi,
  dryRun: boolean,
  log: (line: string) => void,
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
      await api.putApp(a.name, {
        host_scale_check: a.host_scale_check !== 0,
        ...(a.target_nresults > 0 ? { target_nresults: a.target_nresults } : {}),
      });
    });
    await eachLimited(versions, 8, async (v) => {
      await api.putAppVersion(v.id, { app: v.app, platform: v.platform, plan_class: v.plan_class ?? "", version_num: v.version_num });
    });
  }
  return new Map(versions.map((v) => [v.id, v.app]));
}
