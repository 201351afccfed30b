/**
 * TLS to the BOINC database, and no token in cleartext to the service (issue 49, item 4), against
 * two MariaDBs, one that takes only TLS (certificates made here with openssl) and one without
 * TLS, and the real service: VERIFY_CA with the project's CA pays over TLS, every connection
 * encrypted; the wrong CA, REQUIRED against a server without TLS, and a parameter the bridge does
 * not know are refused (exit 2) before anything is sent; plain http:// to another machine needs
 * --allow-http, and is warned about.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConnection } from "../../bridge/database/boinc-db";
import { BridgeError } from "../../bridge/shared/errors";
import { type BridgeOptions, bridgeOptions, runBridge } from "../../bridge/running/run";
import { startWranglerDev, type WranglerDev } from "../browser/wrangler-dev";
import { killBridges, startBridgeCli } from "./bridge-cli";
import { smallBoincDb } from "./boinc-fixture";
import { type MariaDb, mariadbAvailable, startMariaDb } from "./mariadb";
import { createProject } from "./service";
import { makeTlsFiles, opensslAvailable, type TlsFiles } from "./tls-files";
import { WRITER, writerDsn } from "./write-back-check";

const ADMIN = "bridge-db-tls-admin-token";
const T = 1_700_000_000;
const SWITCH = T - 200;
const SUITE = "TLS to the database and to the service";
const available =
  suiteNeeds(SUITE, import.meta.url, "mariadb-server", mariadbAvailable()) &&
  suiteNeeds(SUITE, import.meta.url, "openssl", opensslAvailable());

describe.skipIf(!available)(SUITE, () => {
  /** Takes only TLS (require_secure_transport; the Unix socket the tests' root uses counts as secure). */
  let tlsMaria: MariaDb;
  /** No TLS at all (MariaDB 10.11 has none unless given certificates); its general log shows every login. */
  let plainMaria: MariaDb;
  let server: WranglerDev;
  let work: string;
  let tls: TlsFiles;
  let plainLog: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "cobblestone-db-tls-"));
    tls = await makeTlsFiles(work);
    plainLog = join(work, "plain-general.log");
    const started = await Promise.allSettled([
      startMariaDb(60_000, [...tls.serverArgs, "--require-secure-transport=ON"]),
      startMariaDb(60_000, ["--general-log=1", `--general-log-file=${plainLog}`]),
      startWranglerDev(ADMIN),
    ]);
    const [a, b, c] = started;
    if (a.status === "fulfilled") tlsMaria = a.value;
    if (b.status === "fulfilled") plainMaria = b.value;
    if (c.status === "fulfilled") server = c.value;
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  });
  afterAll(async () => {
    killBridges();
    await Promise.all([tlsMaria?.stop(), plainMaria?.stop(), server?.stop()]);
    if (work) await rm(work, { recursive: true, force: true });
  });

  const stateFile = (slug: string) => join(work, `${slug}.state.json`);
  const options = (db: string, slug: string, token: string, extra: Partial<BridgeOptions> = {}): BridgeOptions =>
    bridgeOptions({ db, url: server.base, project: slug, token, stateFile: stateFile(slug) }, { log: () => undefined, ...extra });
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => new Error("no refusal"),
      (e: unknown) => e as Error,
    );

  /** Three results as a --no_credit validator leaves them, on `maria`; its project. */
  async function unpaid(maria: MariaDb, name: string) {
    const reader = await smallBoincDb(maria, name, T, [{ granted_credit: 0 }, { granted_credit: 0 }, { granted_credit: 0 }]);
    const slug = name.replace(/_/g, "-");
    return { reader, writer: await writerDsn(maria, name), slug, token: await createProject(server.base, ADMIN, slug) };
  }
  async function granted(maria: MariaDb, name: string): Promise<number[]> {
    const conn = await maria.root(name);
    const [rows] = await conn.query("SELECT granted_credit AS g FROM result ORDER BY id");
    await conn.end();
    return (rows as { g: number }[]).map((r) => Number(r.g));
  }
  async function sslAccepts(): Promise<number> {
    const conn = await tlsMaria.root();
    const [rows] = await conn.query("SHOW GLOBAL STATUS LIKE 'Ssl_accepts'");
    await conn.end();
    return Number((rows as { Value: string }[])[0]!.Value);
  }
  const apps = async (slug: string, token: string) =>
    (
      (await (await fetch(`${server.base}/v1/projects/${slug}/apps`, { headers: { Authorization: `Bearer ${token}` } })).json()) as {
        apps: unknown[];
      }
    ).apps;
  /** The plain server's logins by the bridge's accounts (its general log's Connect lines). */
  const plainLogins = async () => (await readFile(plainLog, "utf8")).split("\n").filter((l) => /\bConnect\s+(bridge|writer)@/.test(l));

  it("--boinc-config with --db-params ssl-mode=VERIFY_CA and the project's CA: a --write-back run posts and pays, every connection over TLS", async () => {
    const db = await unpaid(tlsMaria, "tls_write_back");
    const config = join(work, "config.xml");
    await writeFile(
      config,
      `<boinc><config><db_name>tls_write_back</db_name><db_host>127.0.0.1:${tlsMaria.port}</db_host><db_user>${WRITER.name}</db_user><db_passwd>${WRITER.password}</db_passwd></config></boinc>`,
    );
    const args = ["--url", server.base, "--project", db.slug, "--state", stateFile(db.slug), "--boinc-config", config];
    // config.xml's db_user is the writing account here: said so with --project-account.
    const writing = ["--write-back", "--switch-time", String(SWITCH), "--project-account"];
    // Without TLS the server refuses the login (MariaDB says "access denied"): the bridge says what may be why.
    const cleartext = startBridgeCli([...args, ...writing], { COBBLESTONE_TOKEN: db.token });
    expect(await cleartext.exited).toBe(2);
    expect(cleartext.stderr()).toMatch(
      /or the server or this account takes only TLS \(require_secure_transport, REQUIRE SSL\): add ssl-mode=VERIFY_CA/,
    );
    const before = await sslAccepts();
    const bridge = startBridgeCli([...args, "--db-params", `ssl-mode=VERIFY_CA&ssl-ca=${tls.ca}`, ...writing], {
      COBBLESTONE_TOKEN: db.token,
    });
    expect(await bridge.exited, bridge.stderr()).toBe(0);
    expect(bridge.stdout()).toMatch(/^posted 3 validated results .*; wrote back 3 results/);
    expect((await granted(tlsMaria, "tls_write_back")).every((c) => c > 0)).toBe(true);
    // The read pool, the run guard's connection and the write-back's: each a TLS session.
    expect((await sslAccepts()) - before).toBeGreaterThanOrEqual(3);
  });

  it("VERIFY_IDENTITY: the server named as its certificate names it is read; an IP address is refused, as the driver cannot check one", async () => {
    const db = await unpaid(tlsMaria, "tls_identity");
    const named = `${db.reader.replace("@127.0.0.1:", "@localhost:")}?ssl-mode=VERIFY_IDENTITY&ssl-ca=${tls.ca}`;
    expect(await runBridge(options(named, db.slug, db.token))).toMatchObject({ results: 3 });
    const e = await refusal(runBridge(options(`${db.reader}?ssl-mode=VERIFY_IDENTITY&ssl-ca=${tls.ca}`, db.slug, db.token)));
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.message).toMatch(
      /ssl-mode=VERIFY_IDENTITY with the address 127\.0\.0\.1: .* Name the server as its certificate does .* or say VERIFY_CA/,
    );
  });

  it("ssl-cert and ssl-key: an account that requires a client certificate (REQUIRE X509) reads with one, and is refused without", async () => {
    const db = await unpaid(tlsMaria, "tls_client_cert");
    const root = await tlsMaria.root();
    await root.query(
      "CREATE USER 'certified'@'127.0.0.1' IDENTIFIED BY 'c3rt' REQUIRE X509; GRANT SELECT ON tls_client_cert.* TO 'certified'@'127.0.0.1'",
    );
    await root.end();
    const dsn = `mysql://certified:c3rt@127.0.0.1:${tlsMaria.port}/tls_client_cert?ssl-mode=VERIFY_CA&ssl-ca=${tls.ca}`;
    const without = await refusal(runBridge(options(dsn, db.slug, db.token)));
    expect(without.message).toMatch(/user name or password was refused/);
    const report = await runBridge(options(`${dsn}&ssl-cert=${tls.clientCert}&ssl-key=${tls.clientKey}`, db.slug, db.token));
    expect(report).toMatchObject({ results: 3 });
  });

  it("the wrong CA: refused with the reason (exit 2), nothing posted or written", async () => {
    const db = await unpaid(tlsMaria, "tls_wrong_ca");
    const bridge = startBridgeCli(
      ["--url", server.base, "--project", db.slug, "--state", stateFile(db.slug), "--write-back", "--switch-time", String(SWITCH)],
      { COBBLESTONE_TOKEN: db.token, BOINC_DB_URL: `${db.writer}?ssl-mode=VERIFY_CA&ssl-ca=${tls.otherCa}` },
    );
    expect(await bridge.exited).toBe(2);
    expect(bridge.stderr()).toContain(
      `the TLS handshake failed (self-signed certificate in certificate chain) with ssl-mode=VERIFY_CA: the server's certificate must be signed by the CA in ssl-ca (${tls.otherCa}); nothing was sent`,
    );
    expect(bridge.stderr()).not.toContain(WRITER.password);
    expect(await apps(db.slug, db.token)).toEqual([]);
    expect(await granted(tlsMaria, "tls_wrong_ca")).toEqual([0, 0, 0]);
    // Without ssl-ca, Node's own CAs: the project's CA is none of them.
    const e = await refusal(runBridge(options(`${db.reader}?ssl-mode=VERIFY_CA`, db.slug, db.token)));
    expect(e.message).toMatch(/without ssl-ca the server's certificate must be signed by a CA Node trusts/);
  });

  it("REQUIRED or VERIFY_CA against a server without TLS: refused (exit 2), no login in cleartext", async () => {
    const db = await unpaid(plainMaria, "no_tls");
    const bridge = startBridgeCli(["--url", server.base, "--project", db.slug, "--state", stateFile(db.slug)], {
      COBBLESTONE_TOKEN: db.token,
      BOINC_DB_URL: `${db.reader}?ssl-mode=REQUIRED`,
    });
    expect(await bridge.exited).toBe(2);
    expect(bridge.stderr()).toMatch(
      /cannot open the BOINC database .*\?ssl-mode=REQUIRED: the server offers no TLS, and ssl-mode=REQUIRED requires it: nothing was sent in cleartext/,
    );
    const e = await refusal(runBridge(options(`${db.reader}?ssl-mode=VERIFY_CA&ssl-ca=${tls.ca}`, db.slug, db.token)));
    expect(e.message).toMatch(/the server offers no TLS, and ssl-mode=VERIFY_CA requires it/);
    expect(await apps(db.slug, db.token)).toEqual([]);
    expect(await plainLogins()).toEqual([]);
    // The log does show a login, when there is one.
    await (await openConnection(db.reader)).end();
    expect(await plainLogins()).toHaveLength(1);
  });

  it("a parameter the bridge does not know is refused (exit 2), named with the known ones, before any connection", async () => {
    const db = await unpaid(plainMaria, "unknown_param");
    const before = (await plainLogins()).length;
    const bridge = startBridgeCli(["--url", server.base, "--project", db.slug, "--state", stateFile(db.slug)], {
      COBBLESTONE_TOKEN: db.token,
      BOINC_DB_URL: `${db.reader}?ssl=true&sslmode=REQUIRED`,
    });
    expect(await bridge.exited).toBe(2);
    expect(bridge.stderr()).toContain(
      "the database URL has parameters the bridge does not know: 'ssl' (did you mean ssl-mode=REQUIRED, VERIFY_CA or VERIFY_IDENTITY?), 'sslmode' (did you mean ssl-mode?); the bridge knows socket, ssl-mode, ssl-ca, ssl-cert, ssl-key",
    );
    expect((await plainLogins()).length).toBe(before);
    expect(await apps(db.slug, db.token)).toEqual([]);
  });

  it("--url http:// to another machine is refused (exit 2); --allow-http takes it, with a warning", async () => {
    const db = await unpaid(tlsMaria, "tls_http");
    const env = { COBBLESTONE_TOKEN: db.token, BOINC_DB_URL: `${db.reader}?ssl-mode=VERIFY_CA&ssl-ca=${tls.ca}` };
    const refused = startBridgeCli(["--url", "http://example.org", "--project", db.slug, "--state", stateFile(db.slug)], env);
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toMatch(
      /--url http:\/\/example\.org is plain http:\/\/ to another machine: .* Use https:\/\/ \(or, .* --allow-http\)/,
    );
    // 0.0.0.0 is no loopback name to the check, yet Linux delivers it to this machine's service.
    const url = server.base.replace("127.0.0.1", "0.0.0.0");
    const allowed = startBridgeCli(["--url", url, "--allow-http", "--project", db.slug, "--state", stateFile(db.slug)], env);
    expect(await allowed.exited, allowed.stderr()).toBe(0);
    expect(allowed.stderr()).toContain(
      `--allow-http: ${url} is plain http:// to another machine; the project's token and every request go over the network in cleartext`,
    );
    expect(allowed.stdout()).toMatch(/^posted 3 validated results/);
  });
});
