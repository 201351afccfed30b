/**
 * Each app's credit mode, said once, where the project already says it: its validator's command
 * line in config.xml (docs/bridge.md, "Credit modes"), unless --credit-mode APP=MODE overrides
 * it. The run registers each app with its mode (register-apps.ts) and tells what it found. Pure.
 */
import { CREDIT_MODES, type CreditMode } from "../../src/credit/credit-mode";
import { optionIndex, optionValue } from "./config-xml";
import { BridgeError } from "../shared/errors";

export { CREDIT_MODES, type CreditMode };

/** An app's mode as found, and where. */
export interface FoundMode {
  mode: CreditMode;
  /** Where it was found, for the start line: `config.xml: sample_bitwise_validator --app x --credit_from_wu`. */
  source: string;
  /** Every validator found for the app runs with --no_credit (BOINC grants nothing itself); null: not known (no validator read). */
  noCredit: boolean | null;
}

/** Reads some apps' modes from config.xml's daemons' command lines (their words). */
export type ModeFinder = (daemons: readonly (readonly string[])[], file: string) => Map<string, FoundMode>;

/** The validator's option for each mode it can grant by, in the order BOINC's validator tests them. */
const VALIDATOR_OPTIONS: readonly { option: string; mode: CreditMode }[] = [
  { option: "credit_from_wu", mode: "fixed" },
  { option: "credit_from_runtime", mode: "runtime" },
  { option: "post_assigned_credit", mode: "post_assigned" },
];

/**
 * A validator: a daemon with `--app` whose program's name says so (BOINC's sample_bitwise_validator,
 * sample_trivial_validator, a project's own …_validator), or that takes a validator's credit options.
 */
function isValidator(words: readonly string[]): boolean {
  const program = (words[0] ?? "").split("/").at(-1)!;
  return (
    /valid/i.test(program) ||
    [...VALIDATOR_OPTIONS.map((o) => o.option), "no_credit", "max_granted_credit"].some((o) => optionIndex(words, o) >= 0)
  );
}

/**
 * The validators' modes: `--credit_from_wu` fixed, `--credit_from_runtime` runtime,
 * `--post_assigned_credit` post_assigned (the first of them, as BOINC's validator takes them),
 * none of them adaptive (CreditNew). `--no_credit` changes no mode: after the switch-over every
 * validator has it, and the mode says what Cobblestone computes. Validators of one app (`--mod`)
 * that disagree are refused.
 */
export const validatorModes: ModeFinder = (daemons, file) => {
  const found = new Map<string, FoundMode>();
  for (const words of daemons) {
    const app = optionValue(words, "app");
    if (app === undefined || !isValidator(words)) continue;
    const mode = VALIDATOR_OPTIONS.find((o) => optionIndex(words, o.option) >= 0)?.mode ?? "adaptive";
    const noCredit = optionIndex(words, "no_credit") >= 0;
    const source = `${file}: ${words.join(" ")}`;
    const before = found.get(app);
    if (before && before.mode !== mode) {
      throw new BridgeError(
        `${file}: the validators of app '${app}' grant by different credit modes (${before.mode}: '${before.source.slice(file.length + 2)}'; ${mode}: '${words.join(" ")}'); give them the same credit options, or say the mode with --credit-mode ${app}=MODE`,
      );
    }
    found.set(app, { mode, source, noCredit: noCredit && (before?.noCredit ?? true) });
  }
  return found;
};

/**
 * The finders config.xml is read with, in order: the hook for more modes (a `trickle_credit`
 * daemon's finder, naming the apps it pays, goes after the validators': its app is then on
 * `trickle`, whatever its --no_credit validator says).
 */
export const MODE_FINDERS: readonly ModeFinder[] = [validatorModes];

/**
 * Every app's mode config.xml's daemons (config-xml.ts) state, by each finder in turn (a later one's app replaces an
 * earlier one's: the trickle daemon's finder, once there is one, comes after the validators').
 */
export function modesFromConfig(
  daemons: readonly (readonly string[])[],
  file = "config.xml",
  finders: readonly ModeFinder[] = MODE_FINDERS,
): Map<string, FoundMode> {
  const modes = new Map<string, FoundMode>();
  for (const find of finders) for (const [app, m] of find(daemons, file)) modes.set(app, m);
  return modes;
}

/** `--credit-mode APP=MODE`, each given once: the modes they set, by app. */
export function parseModeOverrides(values: readonly string[]): Map<string, CreditMode> {
  const modes = new Map<string, CreditMode>();
  for (const v of values) {
    const eq = v.lastIndexOf("=");
    const app = eq > 0 ? v.slice(0, eq) : "";
    const mode = eq > 0 ? v.slice(eq + 1) : "";
    if (app === "" || !(CREDIT_MODES as readonly string[]).includes(mode)) {
      throw new BridgeError(`--credit-mode takes APP=MODE, MODE one of ${CREDIT_MODES.join(", ")}; not '${v}'`);
    }
    if (modes.has(app) && modes.get(app) !== mode) throw new BridgeError(`--credit-mode: app '${app}' is given two modes`);
    modes.set(app, mode as CreditMode);
  }
  return modes;
}

/** What the run knows of the apps' modes before it asks the service: config.xml's and the overrides. */
export interface StatedModes {
  config: ReadonlyMap<string, FoundMode>;
  overrides: ReadonlyMap<string, CreditMode>;
}

export const NO_STATED_MODES: StatedModes = { config: new Map(), overrides: new Map() };

/**
 * The mode each of the database's apps is registered with (an app neither names keeps the
 * service's own), an override before config.xml. An override of an app the database does not
 * have is refused: it would silently do nothing.
 */
export function statedModes(stated: StatedModes, databaseApps: readonly string[]): Map<string, FoundMode> {
  const known = new Set(databaseApps);
  const unknown = [...stated.overrides.keys()].filter((a) => !known.has(a));
  if (unknown.length > 0) {
    throw new BridgeError(
      `--credit-mode names ${unknown.map((a) => `'${a}'`).join(", ")}, not an app of this database (its apps: ${databaseApps.join(", ") || "none"})`,
    );
  }
  const out = new Map<string, FoundMode>();
  for (const app of databaseApps) {
    const override = stated.overrides.get(app);
    const config = stated.config.get(app);
    if (override !== undefined) out.set(app, { mode: override, source: "--credit-mode", noCredit: config?.noCredit ?? null });
    else if (config) out.set(app, config);
  }
  return out;
}
