/**
 * Reads the BOINC client's own account-manager request (client/acct_mgr.cpp's
 * `<acct_mgr_request>`), as the account manager received it, into the JSON RPC's shape: only
 * what accounting needs (host_info's p_ncpus, p_fpops and GPU count; per `<project>` its url
 * and lifetime totals). Everything else – `<authenticator>`, `<password_hash>`, account keys,
 * preferences, GUI RPC password – is dropped here, never stored or logged.
 */
import { XMLParser } from "fast-xml-parser";
import { TOTALS_FIELDS } from "../../credit/am-deltas";
import { ApiError, type Issue } from "../../http/errors";
import { PARSER_LIMITS, parseCheckedXml, xmlNumber } from "../../http/xml";
import { MAX_PROJECTS_PER_RPC } from "./am-rpcs.schemas";

/** A client's request with 100 projects is about 100 KB; preferences and host info add a few. */
const MAX_ACCT_MGR_XML_BYTES = 512 * 1024;

const parser = new XMLParser({
  ...PARSER_LIMITS,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (_name, jpath) => jpath === "acct_mgr_request.project",
});

type Element = Record<string, unknown>;
const asElement = (v: unknown): Element => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Element) : {});

/** GPUs the client reports: the `<count>` of every coprocessor in `<coprocs>` (coproc_cuda, coproc_ati, coproc_intel_gpu, coproc …). */
function gpuCount(coprocs: unknown): number {
  let n = 0;
  for (const value of Object.values(asElement(coprocs))) {
    for (const coproc of Array.isArray(value) ? value : [value]) {
      const count = xmlNumber(asElement(coproc).count);
      if (Number.isFinite(count)) n += count;
    }
  }
  return n;
}

export interface ClientRpc {
  readonly host: { p_ncpus: number; p_fpops: number; n_gpus: number };
  readonly projects: Record<string, unknown>[];
}

/**
 * The accounting part of an `<acct_mgr_request>`; a 400 for XML that is refused or is not one,
 * a 422 when the client sent no lifetime totals (it sends them only once the account manager's
 * reply set `<dynamic>1</dynamic>`).
 */
export function clientRpcFromXml(xml: string): ClientRpc {
  const bytes = new TextEncoder().encode(xml).length;
  if (bytes > MAX_ACCT_MGR_XML_BYTES) {
    throw new ApiError(400, "xml_too_large", `the XML body is ${bytes} bytes, over the limit of ${MAX_ACCT_MGR_XML_BYTES}`, [
      { path: "(body)", message: `at most ${MAX_ACCT_MGR_XML_BYTES} bytes` },
    ]);
  }
  const root = parseCheckedXml(parser, xml).acct_mgr_request;
  if (root === undefined) {
    throw new ApiError(400, "bad_request", "the XML root element must be <acct_mgr_request> (the BOINC client's account-manager RPC)", [
      { path: "(body)", message: "expected <acct_mgr_request>" },
    ]);
  }
  const request = asElement(root);
  const projects = (request.project as unknown[] | undefined) ?? [];
  if (projects.length > MAX_PROJECTS_PER_RPC) {
    throw new ApiError(
      400,
      "too_many_projects",
      `the request has ${projects.length} <project> elements, over the limit of ${MAX_PROJECTS_PER_RPC}`,
      [{ path: "acct_mgr_request.project", message: `at most ${MAX_PROJECTS_PER_RPC}` }],
    );
  }
  const missing: Issue[] = [];
  const read = projects.map((p, i) => {
    const project = asElement(p);
    const absent = TOTALS_FIELDS.filter((f) => project[f] === undefined);
    if (absent.length > 0) missing.push({ path: `acct_mgr_request.project[${i}]`, message: `no <${absent.join(">, <")}>` });
    return { url: project.url, ...Object.fromEntries(TOTALS_FIELDS.map((f) => [f, xmlNumber(project[f])])) };
  });
  if (missing.length > 0) {
    throw new ApiError(
      422,
      "no_accounting_fields",
      "the client sent no lifetime totals (<cpu_ec> … <njobs_error>); it sends them once the account manager's reply " +
        "has set <dynamic>1</dynamic>; nothing was recorded",
      missing,
    );
  }
  const hostInfo = asElement(request.host_info);
  return {
    host: { p_ncpus: xmlNumber(hostInfo.p_ncpus), p_fpops: xmlNumber(hostInfo.p_fpops), n_gpus: gpuCount(hostInfo.coprocs) },
    projects: read,
  };
}
