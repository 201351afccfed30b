/**
 * XML in and out (the Workers runtime has no DOM). Writing is by hand; reading is
 * fast-xml-parser's, after the checks every XML body gets here: no DOCTYPE or entity
 * declarations (they are how XML bombs and external entities get in) and well-formedness.
 */
import { XMLValidator } from "fast-xml-parser";
import { ApiError } from "./errors";

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

export const XML_MEDIA_TYPES = ["application/xml", "text/xml"] as const;

/** The media type of a Content-Type or Accept value, without parameters, lower case. */
export function mediaType(header: string | undefined): string {
  return header?.split(";")[0]?.trim().toLowerCase() ?? "";
}

export function isXmlMediaType(header: string | undefined): boolean {
  return (XML_MEDIA_TYPES as readonly string[]).includes(mediaType(header));
}

/** Whether an Accept header asks for XML (and not JSON first). */
export function acceptsXml(accept: string | undefined): boolean {
  const types = (accept ?? "").split(",").map((t) => mediaType(t));
  const xml = types.findIndex((t) => (XML_MEDIA_TYPES as readonly string[]).includes(t));
  const json = types.indexOf("application/json");
  return xml !== -1 && (json === -1 || xml < json);
}

/** A decimal number as C's printf or PHP prints one ("1.5", "2.0E-5", "-3"). */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** An element's text as a number; anything else is NaN, which a schema then rejects. */
export function xmlNumber(value: unknown): number {
  return typeof value === "string" && NUMBER.test(value.trim()) ? Number(value) : Number.NaN;
}

/** Refuses a body with a DOCTYPE or entity declarations, or one that is not well-formed XML (400, saying which). */
export function checkXml(xml: string): void {
  if (/<!DOCTYPE/i.test(xml)) {
    throw new ApiError(400, "xml_doctype", "XML with a DOCTYPE is refused (no DTDs, no entity declarations)", [
      { path: "(body)", message: "remove the <!DOCTYPE …> declaration" },
    ]);
  }
  if (/<!ENTITY/i.test(xml)) {
    throw new ApiError(400, "xml_entities", "XML with entity declarations is refused", [{ path: "(body)", message: "remove the <!ENTITY …> declarations" }]);
  }
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw new ApiError(400, "bad_request", `malformed XML: ${msg}`, [{ path: `(body) line ${line}, column ${col}`, message: msg }]);
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Text or attribute content with the five XML special characters escaped (BOINC's xml_escape). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

/** `<name>value</name>`, the value escaped. */
export function element(name: string, value: string | number): string {
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}
