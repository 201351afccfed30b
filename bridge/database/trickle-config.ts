/**
 * Which trickle-up messages the bridge pays (docs/bridge.md, "Trickle credit"): the variety and
 * --max_runtime of the project's `trickle_credit` daemon, read from config.xml's <daemons>, with
 * --trickle-variety and --trickle-max-runtime overriding them, and the service's app the messages
 * are paid under (--trickle-app; by default the app named like the variety, or the only app).
 */
import { daemonCommandLines, optionValue } from "./config-xml";
import type { StatedModes } from "./credit-modes";
import { BridgeError } from "../shared/errors";

export interface TrickleSettings {
  variety: string;
  /** BOINC's --max_runtime: a reported runtime above it is paid as it. */
  maxRuntime: number;
  /** --trickle-app, or null: chosen from the database's apps (trickleApp). */
  app: string | null;
}

/** What config.xml's trickle_credit daemon says (either may be missing). */
export interface TrickleDaemon {
  variety?: string;
  maxRuntime?: string;
}

/**
 * The first <daemon> whose command runs trickle_credit. BOINC's trickle framework takes
 * `--variety` with one dash or two; trickle_credit's own `--max_runtime` only with two (it
 * refuses anything else at start).
 */
export function trickleDaemonOfConfig(xml: string, file = "config.xml"): TrickleDaemon | null {
  for (const words of daemonCommandLines(xml, file)) {
    if (!words[0] || !/(^|\/)trickle_credit$/.test(words[0])) continue;
    const i = words.indexOf("--max_runtime");
    return { variety: optionValue(words, "variety"), maxRuntime: i >= 0 ? words[i + 1] : undefined };
  }
  return null;
}

/**
 * From the options and config.xml's trickle_credit daemon (resolveDatabase's `trickleDaemon`:
 * config.xml is read once, there); null when neither names a variety: no trickles.
 */
export function trickleSettings(
  given: { variety?: string; maxRuntime?: string; app?: string },
  daemon: TrickleDaemon | null,
): TrickleSettings | null {
  const variety = given.variety ?? daemon?.variety;
  if (variety === undefined) {
    if (given.maxRuntime !== undefined || given.app !== undefined)
      throw new BridgeError(
        "--trickle-max-runtime and --trickle-app need a variety: --trickle-variety, or a trickle_credit daemon with --variety in --boinc-config",
      );
    return null;
  }
  if (variety === "") throw new BridgeError("--trickle-variety must not be empty");
  const text = given.maxRuntime ?? daemon?.maxRuntime;
  const from = given.maxRuntime !== undefined ? "--trickle-max-runtime" : "config.xml's trickle_credit --max_runtime";
  if (text === undefined) {
    throw new BridgeError(
      `trickles of variety '${variety}' need the handler's --max_runtime (BOINC's trickle_credit does not start without it): --trickle-max-runtime SECONDS, or --max_runtime on the trickle_credit daemon in config.xml`,
    );
  }
  const maxRuntime = Number(text);
  if (!(text.trim() !== "" && Number.isFinite(maxRuntime) && maxRuntime > 0)) {
    throw new BridgeError(`${from} must be a number of seconds above 0, not '${text}'`);
  }
  return { variety, maxRuntime, app: given.app ?? null };
}

/**
 * The app the service pays the messages under (its trickle_max_runtime is the handler's
 * --max_runtime): --trickle-app, else the database's app named like the variety, else its only app.
 */
export function trickleApp(settings: TrickleSettings, apps: readonly { name: string }[]): string {
  const names = apps.map((a) => a.name);
  if (settings.app !== null) {
    if (!names.includes(settings.app)) throw new BridgeError(`--trickle-app '${settings.app}' is not an app of the BOINC database`);
    return settings.app;
  }
  if (names.includes(settings.variety)) return settings.variety;
  if (names.length === 1) return names[0]!;
  throw new BridgeError(
    `trickles of variety '${settings.variety}': no app of the BOINC database has that name, and it has ${names.length} apps; name the app whose jobs send them with --trickle-app APP`,
  );
}

/**
 * The run's stated modes with the trickle app on `trickle` (credit-modes.ts's hook): after the
 * validators' (its --no_credit validator says adaptive), before --credit-mode, which still wins.
 */
export function withTrickleApp(stated: StatedModes, settings: TrickleSettings | null, apps: readonly { name: string }[]): StatedModes {
  if (!settings) return stated;
  const app = trickleApp(settings, apps);
  const config = new Map(stated.config);
  const source = `the trickle_credit handler of variety '${settings.variety}' (--max_runtime ${settings.maxRuntime})`;
  config.set(app, { mode: "trickle", source, noCredit: stated.config.get(app)?.noCredit ?? null });
  return { ...stated, config };
}
