/**
 * The bridge's command line without a database: where the state file goes, where the database
 * password may come from (never only the command line), one spelling per service URL, --help,
 * and the lock that keeps two runs off one state file.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HelpRequested, parseOptions } from "../../bridge/cli-options";
import { dsnFromBoincConfig } from "../../bridge/db-source";
import { BridgeError } from "../../bridge/errors";
import { lockState } from "../../bridge/lock";
import { normalizeServiceUrl } from "../../bridge/service-url";

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
});
