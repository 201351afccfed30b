/** Reading the pages' HTML in tests: the exact numbers in <data>, sections, links. */
import { exports } from "cloudflare:workers";

const BASE = "http://cobblestone.test";

export interface Page {
  status: number;
  html: string;
  headers: Headers;
}

export async function getPage(path: string, headers: Record<string, string> = {}): Promise<Page> {
  const res = await exports.default.fetch(`${BASE}${path}`, { headers });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

/** The part of a page from the element with `id` to the end of its table. */
export function section(html: string, id: string): string {
  const start = html.indexOf(`id="${id}"`);
  if (start < 0) throw new Error(`no element with id "${id}"`);
  return html.slice(start, html.indexOf("</table>", start));
}

/** Every `<data data-name=name>` in `html`: its exact value and the text people see. */
export function dataOf(html: string, name: string): { value: number; text: string }[] {
  const re = /<data value="([^"]*)" data-name="([^"]*)">([^<]*)<\/data>/g;
  return [...html.matchAll(re)].filter((m) => m[2] === name).map((m) => ({ value: Number(m[1]), text: m[3]! }));
}

/** The first `<data data-name=name>` of `html`. */
export function firstData(html: string, name: string): { value: number; text: string } {
  const found = dataOf(html, name)[0];
  if (!found) throw new Error(`no <data data-name="${name}">`);
  return found;
}

/** Every href of `html`, with &amp; decoded. */
export function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"));
}
