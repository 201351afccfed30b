/**
 * Certificates for the TLS tests, made with openssl in the test's own directory: a CA, the
 * server's certificate signed by it (for localhost and 127.0.0.1), a client certificate signed
 * by it, and a second CA that signed nothing of the server's (the wrong ssl-ca).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const OPENSSL = "/usr/bin/openssl";

export function opensslAvailable(): boolean {
  return existsSync(OPENSSL);
}

export interface TlsFiles {
  ca: string;
  /** A CA of its own: the server's certificate is not signed by it. */
  otherCa: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** mariadbd's options for TLS with these files. */
  serverArgs: string[];
}

async function selfSigned(dir: string, name: string, subject: string): Promise<void> {
  await run(OPENSSL, [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    subject,
    "-keyout",
    join(dir, `${name}.key`),
    "-out",
    join(dir, `${name}.pem`),
  ]);
}

async function signed(dir: string, name: string, subject: string, extensions: string): Promise<void> {
  const ext = join(dir, `${name}.ext`);
  await writeFile(ext, extensions);
  await run(OPENSSL, [
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    subject,
    "-keyout",
    join(dir, `${name}.key`),
    "-out",
    join(dir, `${name}.csr`),
  ]);
  await run(OPENSSL, [
    "x509",
    "-req",
    "-days",
    "2",
    "-in",
    join(dir, `${name}.csr`),
    "-CA",
    join(dir, "ca.pem"),
    "-CAkey",
    join(dir, "ca.key"),
    "-CAcreateserial",
    "-extfile",
    ext,
    "-out",
    join(dir, `${name}.pem`),
  ]);
}

/** `names`: the server certificate's subjectAltName (default localhost and 127.0.0.1). */
export async function makeTlsFiles(dir: string, names = "DNS:localhost,IP:127.0.0.1"): Promise<TlsFiles> {
  await selfSigned(dir, "ca", "/CN=Cobblestone test CA");
  await selfSigned(dir, "other-ca", "/CN=Some other CA");
  await signed(dir, "server", "/CN=localhost", `subjectAltName=${names}\nextendedKeyUsage=serverAuth\n`);
  await signed(dir, "client", "/CN=bridge", "extendedKeyUsage=clientAuth\n");
  const files = {
    ca: join(dir, "ca.pem"),
    otherCa: join(dir, "other-ca.pem"),
    serverCert: join(dir, "server.pem"),
    serverKey: join(dir, "server.key"),
    clientCert: join(dir, "client.pem"),
    clientKey: join(dir, "client.key"),
  };
  return {
    ...files,
    serverArgs: [`--ssl-ca=${files.ca}`, `--ssl-cert=${files.serverCert}`, `--ssl-key=${files.serverKey}`],
  };
}
