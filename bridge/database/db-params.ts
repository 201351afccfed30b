/**
 * The parameters a database URL may carry (`mysql://…/DB?ssl-mode=VERIFY_CA&ssl-ca=/path`):
 * the Unix socket and TLS, with MySQL's own option names (docs/bridge.md, "TLS to the
 * database"). Any other parameter is refused, naming it and the known ones: a parameter read by
 * nobody could be a TLS setting that silently did not take effect.
 */
import { X509Certificate, createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { isAbsolute } from "node:path";
import { createSecureContext } from "node:tls";
import type { SslOptions } from "mysql2";
import { BridgeError } from "../shared/errors";

/** MySQL's --ssl-mode values, less PREFERRED (which falls back to cleartext). */
export const SSL_MODES = ["DISABLED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY"] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** Every parameter the bridge reads; any other is refused. */
export const DSN_PARAMETERS = ["socket", "ssl-mode", "ssl-ca", "ssl-cert", "ssl-key"] as const;
type DsnParameter = (typeof DSN_PARAMETERS)[number];

/** Other clients' spellings (mysql2's ssl, libpq's sslmode and sslrootcert, ssl_ca as in my.cnf…), for "did you mean". */
const SPELLINGS: Record<string, string> = {
  ssl: "ssl-mode=REQUIRED, VERIFY_CA or VERIFY_IDENTITY",
  tls: "ssl-mode=REQUIRED, VERIFY_CA or VERIFY_IDENTITY",
  usessl: "ssl-mode=REQUIRED, VERIFY_CA or VERIFY_IDENTITY",
  requiressl: "ssl-mode=REQUIRED, VERIFY_CA or VERIFY_IDENTITY",
  sslmode: "ssl-mode",
  tlsmode: "ssl-mode",
  sslca: "ssl-ca",
  tlsca: "ssl-ca",
  sslrootcert: "ssl-ca",
  ca: "ssl-ca",
  sslcert: "ssl-cert",
  tlscert: "ssl-cert",
  cert: "ssl-cert",
  sslkey: "ssl-key",
  tlskey: "ssl-key",
  key: "ssl-key",
  socketpath: "socket",
  unixsocket: "socket",
};

export interface DsnSettings {
  socketPath?: string;
  /** DISABLED when the URL says nothing of TLS. */
  sslMode: SslMode;
  /** The CA file VERIFY_CA and VERIFY_IDENTITY check the server's certificate against (none: the CAs Node trusts). */
  sslCa?: string;
  /** mysql2's `ssl`, absent with DISABLED. */
  ssl?: SslOptions;
}

const KNOWN = `the bridge knows ${DSN_PARAMETERS.join(", ")} (docs/bridge.md, "TLS to the database")`;

/** A PEM file of the URL's, read now, so that a wrong path is told before any connection. */
function pem(name: DsnParameter, path: string, marker: RegExp, what: string): string {
  if (!isAbsolute(path))
    throw new BridgeError(`database URL parameter ${name}: '${path}' is not an absolute path; give the file's full path`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new BridgeError(`database URL parameter ${name}: cannot read ${path}: ${(e as Error).message}`);
  }
  if (!marker.test(text)) throw new BridgeError(`database URL parameter ${name}: ${path} holds no ${what} in PEM form (-----BEGIN …-----)`);
  return text;
}

/** The socket and TLS settings of a database URL's query (`host`: the URL's); an unknown, repeated or contradictory parameter is refused. */
export function dsnSettings(query: URLSearchParams, host: string): DsnSettings {
  const unknown: string[] = [];
  const given = new Map<DsnParameter, string>();
  for (const [name, value] of query) {
    if (!(DSN_PARAMETERS as readonly string[]).includes(name)) {
      const hint = SPELLINGS[name.toLowerCase().replace(/[-_]/g, "")];
      unknown.push(`'${name}'${hint ? ` (did you mean ${hint}?)` : ""}`);
      continue;
    }
    if (given.has(name as DsnParameter)) throw new BridgeError(`database URL parameter ${name} is given twice`);
    if (value.trim() === "") throw new BridgeError(`database URL parameter ${name} is empty`);
    given.set(name as DsnParameter, value.trim());
  }
  if (unknown.length > 0) {
    throw new BridgeError(
      `the database URL has ${unknown.length === 1 ? "a parameter" : "parameters"} the bridge does not know: ${unknown.join(", ")}; ${KNOWN}. It refuses what it would not read rather than ignore it`,
    );
  }
  const modeText = given.get("ssl-mode");
  let sslMode: SslMode = "DISABLED";
  if (modeText !== undefined) {
    const upper = modeText.toUpperCase().replace(/-/g, "_");
    if (upper === "PREFERRED") {
      throw new BridgeError(
        "database URL parameter ssl-mode=PREFERRED is not taken: it goes on in cleartext when the server has no TLS. Say REQUIRED, VERIFY_CA or VERIFY_IDENTITY (TLS or no connection), or DISABLED",
      );
    }
    if (!(SSL_MODES as readonly string[]).includes(upper))
      throw new BridgeError(`database URL parameter ssl-mode must be one of ${SSL_MODES.join(", ")}, not '${modeText}'`);
    sslMode = upper as SslMode;
  }
  const files = (["ssl-ca", "ssl-cert", "ssl-key"] as const).filter((p) => given.has(p));
  if (files.length > 0 && modeText === undefined) {
    throw new BridgeError(
      `database URL parameter ${files.join(" and ")} without ssl-mode: add ssl-mode=VERIFY_CA (the server's certificate checked against ssl-ca), VERIFY_IDENTITY (and its host name too) or REQUIRED (encrypted, not checked)`,
    );
  }
  if (sslMode === "DISABLED" && files.length > 0)
    throw new BridgeError(`database URL parameter ${files.join(" and ")} with ssl-mode=DISABLED: there is no TLS to use it for`);
  if (sslMode === "REQUIRED" && given.has("ssl-ca")) {
    throw new BridgeError(
      "database URL parameter ssl-ca with ssl-mode=REQUIRED: REQUIRED checks no certificate; say ssl-mode=VERIFY_CA (or VERIFY_IDENTITY) to have the server's certificate checked against ssl-ca",
    );
  }
  // mysql2 (3.24.6) checks an IP address's certificate as if it were for "localhost": a name only.
  if (sslMode === "VERIFY_IDENTITY" && isIP(host.replace(/^\[|\]$/g, "")) !== 0) {
    throw new BridgeError(
      `database URL parameter ssl-mode=VERIFY_IDENTITY with the address ${host}: the bridge checks the server's certificate against a host name only (its MySQL driver cannot check an IP address). Name the server as its certificate does (such as db.example.org), or say VERIFY_CA`,
    );
  }
  if (given.has("ssl-cert") !== given.has("ssl-key"))
    throw new BridgeError("database URL parameters ssl-cert and ssl-key go together (the client's certificate and its private key)");

  const socket = given.get("socket");
  const settings: DsnSettings = { sslMode, ...(socket ? { socketPath: socket } : {}) };
  if (sslMode === "DISABLED") return settings;
  const caPath = given.get("ssl-ca");
  const ca = caPath === undefined ? undefined : pem("ssl-ca", caPath, /-----BEGIN CERTIFICATE-----/, "certificate");
  const cert = given.has("ssl-cert") ? pem("ssl-cert", given.get("ssl-cert")!, /-----BEGIN CERTIFICATE-----/, "certificate") : undefined;
  const key = given.has("ssl-key") ? pem("ssl-key", given.get("ssl-key")!, /-----BEGIN [A-Z ]*PRIVATE KEY-----/, "private key") : undefined;
  if (cert !== undefined && key !== undefined) {
    const [certPath, keyPath] = [given.get("ssl-cert")!, given.get("ssl-key")!];
    let matches: boolean;
    try {
      matches = new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
    } catch (e) {
      throw new BridgeError(
        `database URL parameters ssl-cert ${certPath} and ssl-key ${keyPath}: cannot read them (${(e as Error).message}); the key must be unencrypted PEM`,
      );
    }
    if (!matches) throw new BridgeError(`database URL parameter ssl-key ${keyPath} is not the private key of ssl-cert ${certPath}`);
  }
  try {
    createSecureContext({ ca, cert, key });
  } catch (e) {
    throw new BridgeError(`database URL parameter ${caPath ? `ssl-ca ${caPath}` : "ssl-cert"}: ${(e as Error).message}`);
  }
  const verify = sslMode !== "REQUIRED";
  settings.ssl = {
    rejectUnauthorized: verify,
    verifyIdentity: sslMode === "VERIFY_IDENTITY",
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert, key }),
  };
  if (caPath !== undefined) settings.sslCa = caPath;
  return settings;
}

/** `params` (--db-params: `ssl-mode=VERIFY_CA&ssl-ca=/path`) added to a database URL's query; a URL that does not parse is left for connectionSettings to refuse. */
export function withDsnParams(dsn: string, params: string | undefined): string {
  const extra = params?.trim().replace(/^\?/, "");
  if (!extra) return dsn;
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    return dsn;
  }
  url.search = url.search ? `${url.search}&${extra}` : `?${extra}`;
  return url.toString();
}
