/** One spelling per service, so that a state file is recognised however --url was typed; and no token in cleartext over a network. */
import { BridgeError } from "../shared/errors";

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

/** localhost, 127.0.0.0/8 and ::1 (also as ::ffff:127.x.y.z): a request there never leaves this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host === "::1") return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  // The URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1.
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host);
}

/** Whether a normalized --url is plain http:// to another machine (the token would cross the network in cleartext). */
export function isCleartextToNetwork(url: string): boolean {
  const u = new URL(url);
  return u.protocol === "http:" && !isLoopbackHost(u.hostname);
}

/**
 * --url, normalized; plain http:// only to this machine (localhost, 127.x, ::1) unless
 * --allow-http says so: every request carries the project's token, which http:// sends readable
 * by anyone on the way. `allowHttp`'s caller warns (cleartextWarning).
 */
export function checkedServiceUrl(text: string, allowHttp: boolean): string {
  const url = normalizeServiceUrl(text);
  if (isCleartextToNetwork(url) && !allowHttp) {
    throw new BridgeError(
      `--url ${url} is plain http:// to another machine: every request carries the project's token, readable by anyone on the way. Use https:// (or, for a service on a network you trust, --allow-http)`,
    );
  }
  return url;
}

/** The warning of a run told --allow-http to a service on another machine. */
export function cleartextWarning(url: string): string {
  return `--allow-http: ${url} is plain http:// to another machine; the project's token and every request go over the network in cleartext`;
}
