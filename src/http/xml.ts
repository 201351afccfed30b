/**
 * XML in and out (the Workers runtime has no DOM). Writing is by hand; reading is
 * fast-xml-parser's, after the checks every XML body gets here: no DOCTYPE or entity
 * declarations (they are how XML bombs and external entities get in) and well-formedness.
 */
import { type XMLParser, XMLValidator } from "fast-xml-parser";
import { ApiError } from "./errors";
import { xmlSafeText } from "./text";

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

const XML_MEDIA_TYPES = ["application/xml", "text/xml"] as const;

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

/** Elements nested deeper than this are refused: a BOINC client's request is about 5 deep. */
const MAX_XML_DEPTH = 100;

/** Options every XML parser here is built with (the parser's own nesting limit above ours). */
export const PARSER_LIMITS = { maxNestedTags: MAX_XML_DEPTH + 1 } as const;

/** The five entities XML defines and character references; without a DTD no other name is defined. */
const UNDEFINED_ENTITY = /&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)[^\s<&]{0,20}/;

/** The text outside comments and CDATA sections, where `&` starts a reference. */
const withoutLiterals = (xml: string) => xml.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>/g, "");

/** How deep the elements of well-formed XML nest (comments, CDATA, declarations and quoted attributes skipped). */
function xmlDepth(xml: string): number {
  let depth = 0;
  let max = 0;
  for (let i = xml.indexOf("<"); i !== -1; i = xml.indexOf("<", i)) {
    const skipTo = xml.startsWith("<!--", i)
      ? "-->"
      : xml.startsWith("<![CDATA[", i)
        ? "]]>"
        : xml[i + 1] === "?" || xml[i + 1] === "!"
          ? ">"
          : null;
    if (skipTo !== null) {
      const end = xml.indexOf(skipTo, i + 2);
      if (end === -1) break;
      i = end + skipTo.length;
      continue;
    }
    let j = i + 1;
    for (let quote = ""; j < xml.length; j++) {
      const ch = xml[j]!;
      if (quote !== "") quote = ch === quote ? "" : quote;
      else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === ">") break;
    }
    if (xml[i + 1] === "/") depth--;
    else if (xml[j - 1] !== "/") max = Math.max(max, ++depth);
    i = j + 1;
  }
  return max;
}

/**
 * Refuses (400, saying which) a body with a DOCTYPE or entity declarations, one that is not
 * well-formed XML (an undefined entity reference included), or one nested deeper than
 * MAX_XML_DEPTH.
 */
function checkXml(xml: string): void {
  if (/<!DOCTYPE/i.test(xml)) {
    throw new ApiError(400, "xml_doctype", "XML with a DOCTYPE is refused (no DTDs, no entity declarations)", [
      { path: "(body)", message: "remove the <!DOCTYPE …> declaration" },
    ]);
  }
  if (/<!ENTITY/i.test(xml)) {
    throw new ApiError(400, "xml_entities", "XML with entity declarations is refused", [
      { path: "(body)", message: "remove the <!ENTITY …> declarations" },
    ]);
  }
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw new ApiError(400, "bad_request", `malformed XML: ${msg}`, [{ path: `(body) line ${line}, column ${col}`, message: msg }]);
  }
  const undefinedEntity = UNDEFINED_ENTITY.exec(withoutLiterals(xml));
  if (undefinedEntity) {
    const ref = undefinedEntity[0];
    throw new ApiError(400, "xml_entities", `malformed XML: the entity reference ${ref} is not defined`, [
      { path: "(body)", message: `only &amp; &lt; &gt; &quot; &apos; and character references (&#…;) are defined; found ${ref}` },
    ]);
  }
  const depth = xmlDepth(xml);
  if (depth > MAX_XML_DEPTH) {
    throw new ApiError(400, "xml_too_deep", `XML nested ${depth} elements deep is refused (at most ${MAX_XML_DEPTH})`, [
      { path: "(body)", message: `at most ${MAX_XML_DEPTH} levels of elements` },
    ]);
  }
}

/** checkXml, then the parser's reading; anything the parser still refuses is a 400 too, never a 500. */
export function parseCheckedXml(parser: XMLParser, xml: string): Record<string, unknown> {
  checkXml(xml);
  try {
    return parser.parse(xml) as Record<string, unknown>;
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new ApiError(400, "bad_request", `malformed XML: ${msg}`, [{ path: "(body)", message: msg }]);
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/**
 * Text or attribute content with the five XML special characters escaped (BOINC's xml_escape),
 * and any character XML 1.0 does not allow replaced (a row stored before the input check), so
 * no stored string can make an export or feed unparseable.
 */
export function escapeXml(text: string): string {
  return xmlSafeText(text).replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

/** `<name>value</name>`, the value escaped. */
export function element(name: string, value: string | number): string {
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}
