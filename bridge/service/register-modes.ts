/**
 * Each app's credit mode on the service made what config.xml's validators or --credit-mode state
 * (credit-modes.ts), and told at the start (docs/bridge.md, "Credit modes"). The service lets only
 * a `manage` token change an app's mode: with the bridge's `ingest` token a mode that differs is
 * refused with the one command that sets it, rather than posted under the wrong mode.
 */
import type { CobblestoneApi } from "./api-client";
import type { CreditMode, FoundMode } from "../database/credit-modes";
import { BridgeError } from "../shared/errors";
import type { EventLog } from "../telling/event-log";

type ServiceApp = Awaited<ReturnType<CobblestoneApi["apps"]>>[number];

/**
 * The service's apps once every stated mode is set on it (the modes they are paid by). An app
 * whose mode differs is changed (PUT, one D1 row, only when it differs); a dry run says what it
 * would change and answers as if it had.
 */
export async function registerModes(
  api: Pick<CobblestoneApi, "apps" | "putApp">,
  slug: string,
  stated: ReadonlyMap<string, FoundMode>,
  dryRun: boolean,
  log: (line: string) => void,
): Promise<{ apps: ServiceApp[]; modes: Map<string, CreditMode> }> {
  const apps = await api.apps();
  const modes = new Map(apps.map((a) => [a.name, a.credit_mode]));
  const changes = [...stated].filter(([app, found]) => (modes.get(app) ?? "adaptive") !== found.mode);
  const refused: string[] = [];
  for (const [app, found] of changes) {
    const from = modes.get(app) ?? "adaptive";
    if (dryRun) log(`would set app '${app}''s credit mode from ${from} to ${found.mode} (${found.source})`);
    else {
      try {
        await api.putApp(app, { credit_mode: found.mode });
      } catch (e) {
        if (!(e instanceof BridgeError && /insufficient_scope/.test(e.message))) throw e;
        refused.push(
          `app '${app}': ${from} on the service, ${found.mode} by ${found.source}: curl -X PUT $B/v1/projects/${slug}/apps/${app} -H "Authorization: Bearer $MANAGE_TOKEN" -H "Content-Type: application/json" -d '{"credit_mode":"${found.mode}"}'`,
        );
        continue;
      }
    }
    modes.set(app, found.mode);
  }
  if (refused.length > 0) {
    throw new BridgeError(
      `the service pays ${refused.length === 1 ? "an app" : "apps"} by another credit mode than stated, and this token (an 'ingest' one) may not change an app's mode; set it once with the project's 'manage' token (docs/bridge.md, "Credit modes"), or give --credit-mode APP=MODE with the service's mode:\n  ${refused.join("\n  ")}`,
    );
  }
  return { apps: dryRun || changes.length === 0 ? apps : await api.apps(), modes };
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
    const mode = serviceModes.get(name) ?? found?.mode ?? "adaptive";
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
