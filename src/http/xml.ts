/** Writing XML text by hand (the Workers runtime has no DOM); parsing is fast-xml-parser's. */

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Text or attribute content with the five XML special characters escaped (BOINC's xml_escape). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

/** `<name>value</name>`, the value escaped. */
export function element(name: string, value: string | number): string {
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}
