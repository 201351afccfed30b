/**
 * The characters XML 1.0 allows (its Char production): tab, LF, CR, U+0020–U+D7FF,
 * U+E000–U+FFFD and U+10000–U+10FFFF. Anything else (the other C0 controls, U+FFFE, U+FFFF,
 * a lone surrogate) makes every XML document it reaches unparseable, so the API refuses it in
 * every string it stores (docs/limits.md#strings) and every writer replaces it (stored rows
 * from before the check included).
 */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const NOT_XML_CHARS = new RegExp(NOT_XML_CHAR.source, "gu");

/** What a writer puts in place of a character XML does not allow. */
export const REPLACEMENT_CHARACTER = "\uFFFD";

/** True when the text holds a character XML 1.0 does not allow. */
export function hasNonXmlChar(text: string): boolean {
  return NOT_XML_CHAR.test(text);
}

/** The text with every character XML 1.0 does not allow replaced by U+FFFD. */
export function xmlSafeText(text: string): string {
  return hasNonXmlChar(text) ? text.replace(NOT_XML_CHARS, REPLACEMENT_CHARACTER) : text;
}

/** The message of the input check, for the issue naming the field. */
export const NON_XML_CHAR_MESSAGE =
  "contains a character XML does not allow (a control character other than tab, LF or CR; U+FFFE, U+FFFF; or a lone surrogate)";
