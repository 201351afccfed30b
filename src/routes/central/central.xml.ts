/**
 * Reads the XML that BOINC's html/user/app_versions.php prints: `<app_versions>` with one
 * `<app_version>` per version (id, create_time, platform, app_name, version_num, plan_class,
 * pfc_n, pfc_avg, pfc_scale, expavg_credit, expavg_time). The result goes through the same
 * schema as a JSON push, so both are checked alike.
 */
import { XMLParser } from "fast-xml-parser";
import { ApiError } from "../../http/errors";
import { PARSER_LIMITS, parseCheckedXml, xmlNumber } from "../../http/xml";

const NUMERIC = ["id", "create_time", "version_num", "pfc_n", "pfc_avg", "pfc_scale", "expavg_credit", "expavg_time"];
/** Elements read; others (a later BOINC may print more) are ignored. */
const KNOWN = new Set([...NUMERIC, "platform", "plan_class"]);

const parser = new XMLParser({
  ...PARSER_LIMITS,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === "app_version",
});

function field(value: unknown, numeric: boolean): unknown {
  if (typeof value !== "string") return value;
  return numeric ? xmlNumber(value) : value;
}

/** `{app_versions: [...]}` as a JSON push would send it; malformed XML is a 400. */
export function appVersionsFromXml(xml: string): { app_versions: Record<string, unknown>[] } {
  const doc = parseCheckedXml(parser, xml);
  const root = doc.app_versions;
  if (root === undefined) {
    throw new ApiError(400, "bad_request", "the XML root element must be <app_versions> (BOINC's app_versions.php)", [
      { path: "(body)", message: "expected <app_versions>" },
    ]);
  }
  // An empty <app_versions></app_versions> parses as "".
  const items = typeof root === "object" && root !== null ? ((root as { app_version?: unknown[] }).app_version ?? []) : [];
  return {
    app_versions: items.map((item) => {
      if (typeof item !== "object" || item === null) return {};
      const { app_name, ...rest } = item as Record<string, unknown>;
      const out: Record<string, unknown> = { app: field(app_name, false), plan_class: "" };
      for (const [k, v] of Object.entries(rest)) if (KNOWN.has(k)) out[k] = field(v, NUMERIC.includes(k));
      return out;
    }),
  };
}
