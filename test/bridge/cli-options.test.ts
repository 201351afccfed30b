/**
 * The bridge's command line without a database: where the state file goes, where the database
 * password may come from (never only the command line), one spelling per service URL, no
 * plain http:// to another machine without --allow-http, the database URL's TLS parameters
 * (and no other), --help, the lock that keeps two runs off one state file, what a state file
 * of another service or project, or a broken one, is told, and an old Node told which Node to
 * install.
 */
import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rootCertificates } from "node:tls";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAuditOptions } from "../../bridge/command-line/audit-cli";
import { connectionSettings } from "../../bridge/database/boinc-db";
import { HelpRequested, parseOptions } from "../../bridge/command-line/cli-options";
import { dsnFromBoincConfig } from "../../bridge/database/db-source";
import { BridgeError } from "../../bridge/shared/errors";
import { lockState } from "../../bridge/running/lock";
import { MIN_NODE_MAJOR, oldNodeProblem } from "../../bridge/shared/node-version";
import { isCleartextToNetwork, normalizeServiceUrl } from "../../bridge/service/service-url";
import { freshState, loadState, saveState } from "../../bridge/running/state";

const ROOT = new URL("../..", import.meta.url).pathname;
const base = ["--url", "http://127.0.0.1:8787", "--project", "demo"];

describe("bridge command line", () => {
  let work: string;
  beforeAll(async () => (work = await mkdtemp(join(tmpdir(), "cobblestone-cli-"))));
  afterAll(() => rm(work, { recursive: true, force: true }));

  it("keeps the state file outside the repository by default, and reads relative paths from where the admin typed them", async () => {
    const env = { HOME: "/home/admin", COBBLESTONE_TOKEN: "t", BOINC_DB_URL: "mysql://u:p@h/db", INIT_CWD: "/srv/boinc" };
    const o = await parseOptions(base, env);
    expect(o.stateFile).toBe("/home/admin/.local/state/cobblestone/bridge-demo.json");
    expect(o.stateFile.startsWith(ROOT)).toBe(false);
    expect(await parseOptions([...base, "--state", "st.json", "--compare", "out.csv"], env)).toMatchObject({
      stateFile: "/srv/boinc/st.json",
      compare: "/srv/boinc/out.csv",
    });
    expect((await parseOptions(base, { ...env, XDG_STATE_HOME: "/var/lib/x" })).stateFile).toBe("/var/lib/x/cobblestone/bridge-demo.json");
  });

  it("takes the database URL from BOINC_DB_URL or the project's config.xml, so the password stays out of ps", async () => {
    const env = { COBBLESTONE_TOKEN: "t" };
    expect((await parseOptions(base, { ...env, BOINC_DB_URL: "mysql://u:p@h:3306/boinc" })).db).toBe("mysql://u:p@h:3306/boinc");
    // --db wins over the environment.
    expect((await parseOptions([...base, "--db", "mysql://a:b@c/d"], { ...env, BOINC_DB_URL: "mysql://u:p@h/x" })).db).toBe(
      "mysql://a:b@c/d",
    );
    const config = join(work, "config.xml");
    await writeFile(
      config,
      `<boinc><config><db_name>einstein</db_name><db_host>db.example.org</db_host><db_user>boincadm</db_user>
        <db_passwd>p:a/s#s@w%rd ?</db_passwd><upload_dir>/x</upload_dir></config><daemons/></boinc>`,
    );
    const o = await parseOptions([...base, "--boinc-config", config], env);
    // Every special character percent-encoded, so it reads back as the password.
    expect(o.db).toBe("mysql://boincadm:p%3Aa%2Fs%23s%40w%25rd%20%3F@db.example.org:3306/einstein");
    expect(decodeURIComponent(new URL(o.db).password)).toBe("p:a/s#s@w%rd ?");
    const missing = await parseOptions(base, env).catch((e) => e);
    expect(missing).toBeInstanceOf(BridgeError);
    expect(missing.message).toMatch(/missing --db \(or BOINC_DB_URL, or --boinc-config\)/);
  });

  it("--write-back's account is a choice: config.xml's db_user (the project's own account) only with --project-account", async () => {
    const env = { COBBLESTONE_TOKEN: "t" };
    const config = join(work, "wb-config.xml");
    await writeFile(
      config,
      `<boinc><config><db_name>main</db_name><db_host>primary</db_host><db_user>boincadm</db_user><db_passwd>p</db_passwd>
        <replica_db_host>replica</replica_db_host><replica_db_user>ro</replica_db_user><replica_db_passwd>q</replica_db_passwd>
        <credit_by_app/></config></boinc>`,
    );
    const wb = [...base, "--boinc-config", config, "--write-back"];
    // --boinc-config alone: refused, naming the ways out.
    const refused = await parseOptions(wb, env).catch((e) => e);
    expect(refused).toBeInstanceOf(BridgeError);
    expect(refused.message).toMatch(
      /^--write-back with --boinc-config and no --db or BOINC_DB_URL would write as config\.xml's db_user 'boincadm', the project's own database account/,
    );
    expect(refused.message).toContain("as BOINC_DB_URL (or --db)");
    expect(refused.message).toContain("add --project-account");
    // Said explicitly: the primary's db_user, told as the project's own account.
    expect(await parseOptions([...wb, "--project-account"], env)).toMatchObject({
      db: "mysql://boincadm:p@primary:3306/main",
      projectAccount: "boincadm",
      creditByApp: true,
    });
    // The write-back's own account from BOINC_DB_URL (or --db): config.xml still gives <credit_by_app/>.
    expect(await parseOptions(wb, { ...env, BOINC_DB_URL: "mysql://cobblestone_wb:x@primary/main" })).toMatchObject({
      db: "mysql://cobblestone_wb:x@primary/main",
      projectAccount: null,
      creditByApp: true,
    });
    // A URL that logs in as config.xml's db_user is the project's own account too.
    expect((await parseOptions([...wb, "--db", "mysql://boincadm:p@primary/main"], env)).projectAccount).toBe("boincadm");
    // --project-account where it means nothing: refused.
    const withDb = await parseOptions([...wb, "--project-account", "--db", "mysql://cobblestone_wb:x@primary/main"], env).catch((e) => e);
    expect(withDb.message).toMatch(
      /^--project-account means the write-back logs in as config\.xml's db_user .*here --db names the account/,
    );
    const noWriteBack = await parseOptions([...base, "--boinc-config", config, "--project-account"], env).catch((e) => e);
    expect(noWriteBack.message).toMatch(/^--project-account only means something with --write-back/);
    // Without --write-back, --boinc-config reads through the replica as before.
    expect((await parseOptions([...base, "--boinc-config", config], env)).db).toBe("mysql://ro:q@replica:3306/main");
  });

  it("reads a config.xml's replica when it has one (BOINC's read-only tools do too)", () => {
    const xml = `<boinc><config><db_name>main</db_name><db_user>u</db_user><db_passwd>p</db_passwd><db_host>primary</db_host>
      <replica_db_host>replica:3307</replica_db_host><replica_db_user>ro</replica_db_user><replica_db_passwd>q</replica_db_passwd></config></boinc>`;
    expect(dsnFromBoincConfig(xml)).toBe("mysql://ro:q@replica:3307/main");
    expect(() => dsnFromBoincConfig("<boinc><config></config></boinc>")).toThrow(/no <db_name>/);
  });

  it("spells one service one way: case, default port and trailing slashes do not make another service", async () => {
    expect(normalizeServiceUrl("http://127.0.0.1:8787/")).toBe("http://127.0.0.1:8787");
    expect(normalizeServiceUrl("HTTPS://Cobblestone.Example.org:443//")).toBe("https://cobblestone.example.org");
    expect(normalizeServiceUrl("https://example.org/api/")).toBe("https://example.org/api");
    expect(() => normalizeServiceUrl("ftp://x")).toThrow(/http:\/\/ or https:\/\//);
    const env = { COBBLESTONE_TOKEN: "t", BOINC_DB_URL: "mysql://u:p@h/db" };
    expect((await parseOptions(["--url", "http://127.0.0.1:8787/", "--project", "demo"], env)).url).toBe("http://127.0.0.1:8787");
  });

  it("refuses plain http:// to another machine unless --allow-http; localhost, 127.x and ::1 are this machine", async () => {
    const env = { COBBLESTONE_TOKEN: "t", BOINC_DB_URL: "mysql://u:p@h/db" };
    const url = async (text: string, ...more: string[]) => (await parseOptions(["--url", text, "--project", "demo", ...more], env)).url;
    for (const local of ["http://localhost:8787", "http://127.0.0.1:8787/", "http://127.1.2.3", "http://[::1]:8787", "HTTP://LOCALHOST"]) {
      expect(isCleartextToNetwork(await url(local))).toBe(false);
    }
    expect(await url("https://cobblestone.example.org")).toBe("https://cobblestone.example.org");
    const refused = await url("http://example.org").catch((e) => e);
    expect(refused).toBeInstanceOf(BridgeError);
    expect(refused.message).toBe(
      "--url http://example.org is plain http:// to another machine: every request carries the project's token, readable by anyone on the way. Use https:// (or, for a service on a network you trust, --allow-http)",
    );
    // Neither a name ending in localhost nor an address on this machine's network is loopback.
    for (const other of ["http://localhost.example.org", "http://192.168.1.5:8787", "http://0.0.0.0:8787", "http://[::ffff:c0a8:105]"]) {
      expect(await url(other).catch((e) => e)).toBeInstanceOf(BridgeError);
    }
    expect(await url("http://[::ffff:127.0.0.1]:8787")).toBe("http://[::ffff:7f00:1]:8787");
    expect(await url("http://example.org", "--allow-http")).toBe("http://example.org");
    // The audit takes the same --url.
    const audit = (...more: string[]) => parseAuditOptions(["--url", "http://example.org", "--project", "demo", ...more], env);
    expect((await audit().catch((e) => e)).message).toMatch(/^--url http:\/\/example\.org is plain http:\/\/ to another machine/);
    expect((await audit("--allow-http"))!.url).toBe("http://example.org");
  });

  it("reads TLS to the database from the URL's ssl-mode, ssl-ca, ssl-cert and ssl-key, and refuses any other parameter", async () => {
    // A CA certificate Node ships, as the CA file.
    const caText = rootCertificates[0]!;
    const ca = join(work, "ca.pem");
    await writeFile(ca, caText);
    const settings = (query: string, host = "db.example.org") => connectionSettings(`mysql://u:p@${host}:3306/boinc${query}`);
    const refused = (query: string, host?: string) => {
      try {
        settings(query, host);
      } catch (e) {
        expect(e).toBeInstanceOf(BridgeError);
        return (e as Error).message;
      }
      throw new Error(`${query} was taken`);
    };
    expect(settings("").settings.ssl).toBeUndefined();
    expect(settings("").tls.sslMode).toBe("DISABLED");
    expect(settings("?socket=/run/mysqld/mysqld.sock").settings).toMatchObject({ socketPath: "/run/mysqld/mysqld.sock" });
    expect(settings("?ssl-mode=required").settings.ssl).toEqual({ rejectUnauthorized: false, verifyIdentity: false });
    expect(settings(`?ssl-mode=VERIFY_CA&ssl-ca=${ca}`).settings.ssl).toEqual({
      rejectUnauthorized: true,
      verifyIdentity: false,
      ca: caText,
    });
    // Without ssl-ca: the CAs Node trusts.
    expect(settings("?ssl-mode=VERIFY_IDENTITY").settings.ssl).toEqual({ rejectUnauthorized: true, verifyIdentity: true });

    expect(refused("?ssl=true&sslmode=REQUIRED&ssl_ca=/x&charset=utf8")).toBe(
      "the database URL has parameters the bridge does not know: 'ssl' (did you mean ssl-mode=REQUIRED, VERIFY_CA or VERIFY_IDENTITY?), 'sslmode' (did you mean ssl-mode?), 'ssl_ca' (did you mean ssl-ca?), 'charset'; " +
        'the bridge knows socket, ssl-mode, ssl-ca, ssl-cert, ssl-key (docs/bridge.md, "TLS to the database"). It refuses what it would not read rather than ignore it',
    );
    expect(refused("?ssl-mode=PREFERRED")).toMatch(/^database URL parameter ssl-mode=PREFERRED is not taken: it goes on in cleartext/);
    expect(refused("?ssl-mode=ON")).toBe(
      "database URL parameter ssl-mode must be one of DISABLED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY, not 'ON'",
    );
    expect(refused("?ssl-mode=REQUIRED&ssl-mode=DISABLED")).toBe("database URL parameter ssl-mode is given twice");
    expect(refused("?socket=")).toBe("database URL parameter socket is empty");
    expect(refused(`?ssl-ca=${ca}`)).toMatch(/^database URL parameter ssl-ca without ssl-mode: add ssl-mode=VERIFY_CA/);
    expect(refused(`?ssl-mode=DISABLED&ssl-ca=${ca}`)).toMatch(/ssl-ca with ssl-mode=DISABLED: there is no TLS to use it for/);
    expect(refused(`?ssl-mode=REQUIRED&ssl-ca=${ca}`)).toMatch(
      /^database URL parameter ssl-ca with ssl-mode=REQUIRED: REQUIRED checks no certificate/,
    );
    expect(refused("?ssl-mode=VERIFY_CA&ssl-ca=ca.pem")).toMatch(/ssl-ca: 'ca.pem' is not an absolute path/);
    expect(refused(`?ssl-mode=VERIFY_CA&ssl-ca=${work}/none.pem`)).toMatch(
      /^database URL parameter ssl-ca: cannot read .*none\.pem: ENOENT/,
    );
    const notPem = join(work, "not.pem");
    await writeFile(notPem, "not a certificate\n");
    expect(refused(`?ssl-mode=VERIFY_CA&ssl-ca=${notPem}`)).toMatch(/ssl-ca: .*not\.pem holds no certificate in PEM form/);
    expect(refused(`?ssl-mode=REQUIRED&ssl-cert=${ca}`)).toMatch(/ssl-cert and ssl-key go together/);
    const key = join(work, "client.key");
    await writeFile(key, generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }));
    expect(refused(`?ssl-mode=REQUIRED&ssl-cert=${ca}&ssl-key=${key}`)).toMatch(
      /^database URL parameter ssl-key .*client\.key is not the private key of ssl-cert .*ca\.pem$/,
    );
    expect(refused("?ssl-mode=VERIFY_IDENTITY", "127.0.0.1")).toMatch(
      /^database URL parameter ssl-mode=VERIFY_IDENTITY with the address 127\.0\.0\.1: .*or say VERIFY_CA$/,
    );
    expect(refused("?ssl-mode=VERIFY_IDENTITY", "[::1]")).toMatch(/with the address \[::1\]/);

    // --db-params: the same parameters for config.xml's database (and added to any URL's), checked before anything starts.
    const env = { COBBLESTONE_TOKEN: "t" };
    const config = join(work, "tls-config.xml");
    await writeFile(
      config,
      "<boinc><config><db_name>boinc</db_name><db_host>db.example.org</db_host><db_user>u</db_user><db_passwd>p</db_passwd></config></boinc>",
    );
    const tlsParams = `ssl-mode=VERIFY_CA&ssl-ca=${ca}`;
    expect((await parseOptions([...base, "--boinc-config", config, "--db-params", tlsParams], env)).db).toBe(
      `mysql://u:p@db.example.org:3306/boinc?${tlsParams}`,
    );
    expect((await parseOptions([...base, "--db-params", `?${tlsParams}`], { ...env, BOINC_DB_URL: "mysql://u:p@h/db?socket=/s" })).db).toBe(
      `mysql://u:p@h/db?socket=/s&${tlsParams}`,
    );
    const twice = await parseOptions([...base, "--db-params", "ssl-mode=REQUIRED"], {
      ...env,
      BOINC_DB_URL: "mysql://u:p@h/db?ssl-mode=DISABLED",
    }).catch((e) => e);
    expect(twice.message).toBe("database URL parameter ssl-mode is given twice");
    const unknown = await parseOptions(base, { ...env, BOINC_DB_URL: "mysql://u:p@h/db?sslmode=REQUIRED" }).catch((e) => e);
    expect(unknown).toBeInstanceOf(BridgeError);
    expect(unknown.message).toMatch(/^the database URL has a parameter the bridge does not know: 'sslmode' \(did you mean ssl-mode\?\)/);
  });

  it("--help prints the usage; an unknown option names itself and the usage", async () => {
    const help = await parseOptions(["--help"], {}).catch((e) => e);
    expect(help).toBeInstanceOf(HelpRequested);
    expect(help.message).toMatch(/^usage: cobblestone-bridge /);
    expect(help.message).toContain("BOINC_DB_URL");
    const unknown = await parseOptions(["--nope"], {}).catch((e) => e);
    expect(unknown).toBeInstanceOf(BridgeError);
    expect(unknown.message).toMatch(/--nope[\s\S]*usage:/);
  });

  it("reads --log-format, --metrics-port, --metrics-host and --metrics-file, and refuses bad values with one clear message each", async () => {
    const env = { COBBLESTONE_TOKEN: "t", BOINC_DB_URL: "mysql://u:p@h/db", INIT_CWD: "/srv/boinc" };
    expect(await parseOptions(base, env)).toMatchObject({ logFormat: "text", metrics: null, metricsFile: null, progress: true });
    expect(
      await parseOptions([...base, "--log-format", "json", "--metrics-port", "9464", "--metrics-file", "bridge.prom"], env),
    ).toMatchObject({
      logFormat: "json",
      metrics: { host: "127.0.0.1", port: 9464 },
      metricsFile: "/srv/boinc/bridge.prom",
      // A progress line is not JSON.
      progress: false,
    });
    expect((await parseOptions([...base, "--metrics-port", "9464", "--metrics-host", "::1"], env)).metrics).toEqual({
      host: "::1",
      port: 9464,
    });
    const refused = async (args: string[]) => {
      const e = await parseOptions([...base, ...args], env).catch((x) => x);
      expect(e).toBeInstanceOf(BridgeError);
      return (e as Error).message;
    };
    expect(await refused(["--log-format", "xml"])).toBe("--log-format must be text or json, not 'xml'");
    for (const port of ["0", "65536", "http", "9464.5", "-1", ""]) {
      expect(await refused([`--metrics-port=${port}`])).toBe(`--metrics-port must be a TCP port number from 1 to 65535, not '${port}'`);
    }
    expect(await refused(["--metrics-host", "0.0.0.0"])).toMatch(/^--metrics-host only means something with --metrics-port\nusage:/);
    expect(await refused(["--metrics-port", "9464", "--metrics-host", " "])).toMatch(/^--metrics-host must name an address/);
    expect(await refused(["--metrics-file", "/var/lib/node_exporter/bridge.txt"])).toBe(
      "--metrics-file must end in .prom (node_exporter's textfile collector reads only *.prom files), not '/var/lib/node_exporter/bridge.txt'",
    );
  });

  it("reads --request-timeout, --request-attempts and --max-answer-mib (each request's limits), and refuses bad values", async () => {
    const env = { COBBLESTONE_TOKEN: "t", BOINC_DB_URL: "mysql://u:p@h/db" };
    const defaults = await parseOptions(base, env);
    // Unset: the run's defaults (retrying-fetch.ts, capped-answer.ts).
    expect([defaults.requestTimeoutMs, defaults.requestAttempts, defaults.maxAnswerBytes]).toEqual([undefined, undefined, undefined]);
    expect(
      await parseOptions([...base, "--request-timeout", "2.5", "--request-attempts", "3", "--max-answer-mib", "128"], env),
    ).toMatchObject({ requestTimeoutMs: 2500, requestAttempts: 3, maxAnswerBytes: 128 * 1024 * 1024 });
    const refused = async (args: string[]) => {
      const e = await parseOptions([...base, ...args], env).catch((x) => x);
      expect(e).toBeInstanceOf(BridgeError);
      return (e as Error).message;
    };
    for (const t of ["0", "0.05", "3601", "soon", ""]) {
      expect(await refused([`--request-timeout=${t}`])).toBe(`--request-timeout must be a number of seconds from 0.1 to 3600, not '${t}'`);
    }
    for (const n of ["0", "1.5", "101", "many"]) {
      expect(await refused([`--request-attempts=${n}`])).toBe(`--request-attempts must be a whole number from 1 to 100, not '${n}'`);
    }
    for (const m of ["0.5", "257", "big"]) {
      expect(await refused([`--max-answer-mib=${m}`])).toBe(`--max-answer-mib must be a number of MiB from 1 to 256, not '${m}'`);
    }
  });

  it("lets one run at a time use a state file, and takes over the lock of a run that died", async () => {
    const state = join(work, "locked.json");
    const first = await lockState(state);
    expect(await readFile(`${state}.lock`, "utf8")).toBe(`${process.pid}\n`);
    const second = await lockState(state).catch((e) => e);
    expect(second).toBeInstanceOf(BridgeError);
    expect(second.message).toMatch(new RegExp(`another bridge run \\(pid ${process.pid}\\) is using .*locked\\.json`));
    await first.release();
    // A lock whose pid is gone (a run killed with SIGKILL): taken over.
    await writeFile(`${state}.lock`, "999999999\n");
    const taken = await lockState(state);
    expect(await readFile(`${state}.lock`, "utf8")).toBe(`${process.pid}\n`);
    await taken.release();
    // The default state directory need not exist yet.
    const fresh = await lockState(join(work, "new", "dir", "state.json"));
    await fresh.release();
  });

  it("a state file of another spelling of the service, of another project, or broken: refused with how to go on", async () => {
    const file = join(work, "moved.json");
    const saved = { ...freshState("https://cobblestone.example.org", "demo", 0), cursor: { mod_time: 1_700_000_000, id: 42 } };
    await saveState(file, saved);
    // The same URL however spelled: the cursor is read.
    expect((await loadState(file, normalizeServiceUrl("HTTPS://Cobblestone.Example.org:443//"), "demo"))?.cursor).toEqual(saved.cursor);

    const refusal = async (url: string, project = "demo") => {
      const e = await loadState(file, url, project).catch((x) => x);
      expect(e).toBeInstanceOf(BridgeError);
      return (e as Error).message;
    };
    // Another spelling of the host: both URLs, and the two ways to keep the cursor.
    const moved = await refusal("https://203.0.113.7");
    expect(moved).toContain(`the state file ${file} was saved for project 'demo' at https://cobblestone.example.org`);
    expect(moved).toContain("this run was given --url https://203.0.113.7");
    expect(moved).toContain("run with --url https://cobblestone.example.org as before");
    expect(moved).toContain(`or change the state file's "url" field to "https://203.0.113.7" (the cursor is kept either way)`);
    expect(moved).toMatch(/another service, give this run a state file of its own \(--state FILE\)/);
    expect(moved).not.toContain("\n");
    // Its advice works: the file with the other spelling is this run's.
    await writeFile(file, JSON.stringify({ ...saved, url: "https://203.0.113.7" }));
    expect((await loadState(file, "https://203.0.113.7", "demo"))?.cursor).toEqual(saved.cursor);

    expect(await refusal("https://203.0.113.7", "other")).toMatch(
      /belongs to project 'demo' at https:\/\/203\.0\.113\.7, not 'other': give each project a state file of its own \(--state FILE/,
    );

    // A broken state file: moving it away is a full re-post, and --rewind is the way back in time.
    for (const [text, what] of [
      ["{ not json", "is not JSON ("],
      [`{"version":1,"url":"https://cobblestone.example.org"}`, "is not a bridge state file"],
    ]) {
      await writeFile(file, text!);
      const message = await refusal("https://cobblestone.example.org");
      expect(message.startsWith(`the state file ${file} ${what}`), message).toBe(true);
      expect(message).toContain(
        "moving it away starts over: the next run posts the whole history again, from the beginning or from --since TIME",
      );
      expect(message).toContain("--rewind TIME moves a sound state file's cursor back instead");
    }
  });

  it("an old Node is told which Node to install and exits 2, before anything else of the bridge is loaded", async () => {
    const engines = JSON.parse(await readFile(join(ROOT, "bridge/pack/package/package.json"), "utf8")).engines.node;
    expect(engines).toBe(`>=${MIN_NODE_MAJOR}`);
    for (const ok of [`${MIN_NODE_MAJOR}.0.0`, "22.23.3", "v24.1.0"]) expect(oldNodeProblem(ok)).toBeNull();
    for (const old of ["18.19.1", "12.22.9", "v19.9.0", "nonsense"]) {
      expect(oldNodeProblem(old)).toMatch(
        new RegExp(`^bridge: this is Node ${old}; the bridge needs Node ${MIN_NODE_MAJOR} or later .*install nodejs ${MIN_NODE_MAJOR}\\.x`),
      );
    }
    // The check is cli.ts's first import, so that it runs before any other module of the bridge is evaluated.
    const cli = await readFile(join(ROOT, "bridge/cli.ts"), "utf8");
    expect(/^import\s[^;]*?["']([^"']+)["']/m.exec(cli)?.[1]).toBe("./shared/node-version");
    // As `npm run bridge` runs it, on a Node that calls itself 18 (Debian 12's): one line, exit 2, nothing else done.
    const fake = join(work, "node-18.cjs");
    await writeFile(fake, `Object.defineProperty(process.versions, "node", { value: "18.19.1" });\n`);
    const e = await promisify(execFile)("node", ["--require", fake, "--import", "tsx", "bridge/cli.ts", "--version"], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}` },
    }).catch((x) => x);
    expect(e.code).toBe(2);
    expect(e.stdout).toBe("");
    expect(e.stderr).toBe(`${oldNodeProblem("18.19.1")}\n`);
  });
});
