/** BOINC's config.xml as the bridge reads it: the file parsed, and its daemons' command lines. */
import { XMLParser } from "fast-xml-parser";
import { BridgeError } from "../shared/errors";

type ParsedConfig = { boinc?: { config?: unknown; daemons?: unknown }; config?: unknown; daemons?: unknown };

export function parseConfig(xml: string, file: string): ParsedConfig {
  try {
    return new XMLParser({ parseTagValue: false, trimValues: true }).parse(xml) as ParsedConfig;
  } catch (e) {
    throw new BridgeError(`${file} is not XML: ${(e as Error).message}`);
  }
}

/**
 * The words of each daemon's command line in config.xml's <daemons> (credit-modes.ts reads the
 * validators' credit options from them too).
 */
export function daemonCommandLines(xml: string, file = "config.xml"): string[][] {
  const parsed = parseConfig(xml, file);
  const daemons = (parsed.boinc?.daemons ?? parsed.daemons) as { daemon?: unknown } | undefined;
  const list = daemons && typeof daemons === "object" ? daemons.daemon : undefined;
  return (Array.isArray(list) ? list : list === undefined ? [] : [list]).map((d) =>
    String((d as { cmd?: unknown })?.cmd ?? "")
      .split(/\s+/)
      .filter((w) => w !== ""),
  );
}

/** Where `--NAME` (or `-NAME`: BOINC's daemons take each option with one dash or two) is on a command line, or -1. */
export function optionIndex(words: readonly string[], name: string): number {
  return words.findIndex((w) => w === `-${name}` || w === `--${name}`);
}

/** The word after `--NAME` on a command line. */
export function optionValue(words: readonly string[], name: string): string | undefined {
  const i = optionIndex(words, name);
  return i >= 0 ? words[i + 1] : undefined;
}
