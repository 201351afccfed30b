/** One spelling per service, so that a state file is recognised however --url was typed. */
import { BridgeError } from "./errors";

/** `HTTP://Host:443/x/` and `https://host/x` are the same service: lower-case origin, no default port, no trailing slash. */
export function normalizeServiceUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new BridgeError(`--url '${text}' is not a URL (e.g. https://cobblestone.example.org)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new BridgeError(`--url must start with http:// or https:// (got ${url.protocol}//)`);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}
