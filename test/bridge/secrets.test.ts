/**
 * The secrets without a command line or an environment (issue 49): `--secrets-file FILE` and
 * systemd's credentials ($CREDENTIALS_DIRECTORY), first without a database (what each source
 * gives, in which order, and what is refused, never quoting a value), then the bridge against
 * MariaDB and `wrangler dev` with the token and a percent-encoded password only in a secrets file
 * in a credentials directory, as the shipped units run it: it posts and writes back, and
 * neither /proc/PID/cmdline nor /proc/PID/environ of its process holds the token or the password.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { parseAuditOptions } from "../../bridge/command-line/audit-cli";
import { parseOptions } from "../../bridge/command-line/cli-options";
import { BridgeError } from "../../bridge/shared/errors";
import { parseSecretsFile } from "../../bridge/command-line/secrets";
import { smallBoincDb } from "./boinc-fixture";
import { startBridgeCli, validateNoCredit } from "./bridge-cli";
import { type MariaDb, mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";

const base = ["--url", "http://127.0.0.1:8787", "--project", "demo"];
const TOKEN = "cbp_file-token-7f3a";
const DB = "mysql://u:p%25w%40d@h:3306/boinc";

/** A file of `text` with `mode`, in `dir`. */
async function fileOf(dir: string, name: string, text: string, mode = 0o600): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  await chmod(path, mode);
  return path;
}

/** The error `promise` rejects with. */
const refusal = (promise: Promise<unknown>): Promise<BridgeError> =>
  promise.then(
    () => Promise.reject(new Error("not refused")),
    (e: unknown) => e as BridgeError,
  );

describe("the secrets: --secrets-file and systemd's credentials", () => {
  let work: string;
  beforeAll(async () => (work = await mkdtemp(join(tmpdir(), "cobblestone-secrets-"))));
  afterAll(() => rm(work, { recursive: true, force: true }));

  it("reads KEY=VALUE lines: comments, `export`, one pair of quotes taken off, nothing expanded", () => {
    const text = ["# the project's secrets", "", `export COBBLESTONE_TOKEN="${TOKEN}"`, `  BOINC_DB_URL = '${DB}'  `].join("\n");
    expect(parseSecretsFile(text, "f")).toEqual({ COBBLESTONE_TOKEN: TOKEN, BOINC_DB_URL: DB });
    // A '%', '$' or '\' is the character itself: no systemd specifier, no shell variable.
    expect(parseSecretsFile("BOINC_DB_URL=mysql://u:a%25$HOME\\n@h/d\r\n", "f")).toEqual({ BOINC_DB_URL: "mysql://u:a%25$HOME\\n@h/d" });
  });

  it("takes a `#` after a space as a comment, as docs/bridge.md's step 5 writes the file; a `#` inside a value stays", () => {
    const text = [`COBBLESTONE_TOKEN=${TOKEN}     # the ingest token of step 4`, `BOINC_DB_URL='${DB}'  # quoted, then a comment`].join(
      "\n",
    );
    expect(parseSecretsFile(text, "f")).toEqual({ COBBLESTONE_TOKEN: TOKEN, BOINC_DB_URL: DB });
    expect(parseSecretsFile("COBBLESTONE_TOKEN=cbp_a#b", "f")).toEqual({ COBBLESTONE_TOKEN: "cbp_a#b" });
  });

  it("refuses a line it cannot read by its number, never quoting it, and a key it does not take by its name", () => {
    expect(() => parseSecretsFile(`COBBLESTONE_TOKEN=${TOKEN}\nmysql://u:hunter2@h/d`, "/etc/x.secrets")).toThrow(
      new BridgeError("--secrets-file: /etc/x.secrets line 2 is not KEY=VALUE (the file takes COBBLESTONE_TOKEN and BOINC_DB_URL)"),
    );
    expect(() => parseSecretsFile("COBBLESTONE_TOKN=abc", "f")).toThrow(
      "--secrets-file: f line 1 sets COBBLESTONE_TOKN; the file takes only COBBLESTONE_TOKEN and BOINC_DB_URL",
    );
    expect(() => parseSecretsFile("COBBLESTONE_TOKEN=a\nCOBBLESTONE_TOKEN=b", "f")).toThrow(
      "f line 2 sets COBBLESTONE_TOKEN a second time",
    );
    expect(() => parseSecretsFile("COBBLESTONE_TOKEN=''", "f")).toThrow("f line 1 sets COBBLESTONE_TOKEN to nothing");
  });

  it("--secrets-file gives the token and the database; --token and --db still win, the environment comes after", async () => {
    const file = await fileOf(work, "demo.secrets", `COBBLESTONE_TOKEN=${TOKEN}\nBOINC_DB_URL=${DB}\n`);
    const o = await parseOptions([...base, "--secrets-file", file], {});
    expect(o).toMatchObject({ token: TOKEN, db: DB });
    const env = { COBBLESTONE_TOKEN: "from-env", BOINC_DB_URL: "mysql://e:e@e/e" };
    expect(await parseOptions([...base, "--secrets-file", file], env)).toMatchObject({ token: TOKEN, db: DB });
    expect(await parseOptions([...base, "--secrets-file", file, "--token", "t2", "--db", "mysql://a:b@c/d"], env)).toMatchObject({
      token: "t2",
      db: "mysql://a:b@c/d",
    });
    // A file with the token only: the database from the environment.
    const tokenOnly = await fileOf(work, "token-only.secrets", `COBBLESTONE_TOKEN=${TOKEN}\n`);
    expect(await parseOptions([...base, "--secrets-file", tokenOnly], env)).toMatchObject({ token: TOKEN, db: "mysql://e:e@e/e" });
    // A relative path is where the admin typed the command.
    expect(await parseOptions([...base, "--secrets-file", "demo.secrets"], { INIT_CWD: work })).toMatchObject({ token: TOKEN });
    // The audit reads it the same way.
    expect(await parseAuditOptions([...base, "--secrets-file", file], {})).toMatchObject({ token: TOKEN, db: DB });
  });

  it("refuses a secrets file its group or other users may read, saying how to fix it and quoting nothing of it", async () => {
    for (const mode of [0o640, 0o604, 0o644, 0o620]) {
      const file = await fileOf(work, `open-${mode.toString(8)}.secrets`, `COBBLESTONE_TOKEN=${TOKEN}\nBOINC_DB_URL=${DB}\n`, mode);
      const e = await refusal(parseOptions([...base, "--secrets-file", file], {}));
      expect(e).toBeInstanceOf(BridgeError);
      expect(e.message).toBe(
        `--secrets-file ${file} is open to its group or to other users (mode 0${mode.toString(8)}), and it holds the project's token and the database password: make it the owner's alone (chmod 600 ${file}) and run the bridge again`,
      );
    }
    const missing = await refusal(parseOptions([...base, "--secrets-file", join(work, "nowhere.secrets")], {}));
    expect(missing.message).toMatch(/^cannot read --secrets-file .*nowhere\.secrets: ENOENT/);
    const bad = await fileOf(work, "bad.secrets", `COBBLESTONE_TOKEN=${TOKEN}\n${DB}\n`);
    const unreadable = await refusal(parseOptions([...base, "--secrets-file", bad], {}));
    expect(unreadable.message).toContain("line 2 is not KEY=VALUE");
    expect(unreadable.message).not.toContain("p%25w");
    expect(unreadable.message).not.toContain(TOKEN);
  });

  it("reads systemd's credentials cobblestone-token, boinc-db-url and boinc-config.xml, after --secrets-file and before the environment", async () => {
    const creds = join(work, "credentials");
    await mkdir(creds);
    await fileOf(creds, "cobblestone-token", `${TOKEN}-cred\n`, 0o400);
    await fileOf(creds, "boinc-db-url", `${DB}\n`, 0o400);
    const env = { CREDENTIALS_DIRECTORY: creds, COBBLESTONE_TOKEN: "from-env", BOINC_DB_URL: "mysql://e:e@e/e" };
    expect(await parseOptions(base, env)).toMatchObject({ token: `${TOKEN}-cred`, db: DB });
    const file = await fileOf(work, "cred-first.secrets", `COBBLESTONE_TOKEN=${TOKEN}\n`);
    expect(await parseOptions([...base, "--secrets-file", file], env)).toMatchObject({ token: TOKEN, db: DB });
    // config.xml as a credential: the database from it (and its <credit_by_app/>) when nothing else gives one;
    // a write-back as its db_user, the project's own account, only when --project-account says so.
    const only = join(work, "config-credential");
    await mkdir(only);
    await fileOf(only, "cobblestone-token", TOKEN, 0o400);
    await fileOf(
      only,
      "boinc-config.xml",
      "<boinc><config><db_name>einstein</db_name><db_host>db</db_host><db_user>boincadm</db_user><db_passwd>p@ss</db_passwd><credit_by_app/></config></boinc>",
      0o400,
    );
    await expect(parseOptions([...base, "--write-back"], { CREDENTIALS_DIRECTORY: only })).rejects.toThrow(/--project-account/);
    const o = await parseOptions([...base, "--write-back", "--project-account"], { CREDENTIALS_DIRECTORY: only });
    expect(o).toMatchObject({ token: TOKEN, db: "mysql://boincadm:p%40ss@db:3306/einstein", creditByApp: true });
    // An empty credential (SetCredential='s default when LoadCredential= found no file) counts as none.
    await fileOf(only, "boinc-db-url", "", 0o400);
    expect((await parseOptions(base, { CREDENTIALS_DIRECTORY: only })).db).toBe("mysql://boincadm:p%40ss@db:3306/einstein");
  });
});

const ADMIN = "bridge-secrets-admin-token";
const available = suiteNeeds("the bridge with its secrets in a secrets file only", import.meta.url, "mariadb-server", mariadbAvailable());
/** A password with every character a URL must percent-encode, and a '%' systemd would read as a specifier. */
const PASSWORD = "p%w@d:s/1 x#?";
const ACCOUNT = "secretive";

/** The account with that password, allowed `privileges` on `database`. */
async function account(maria: MariaDb, database: string, privileges: string): Promise<void> {
  const root = await maria.root();
  await root.query(`CREATE USER IF NOT EXISTS '${ACCOUNT}'@'127.0.0.1' IDENTIFIED BY ?`, [PASSWORD]);
  await root.query(`GRANT ${privileges} ON \`${database}\`.* TO '${ACCOUNT}'@'127.0.0.1'`);
  await root.end();
}

describe.skipIf(!available)("the bridge with its secrets in a secrets file only", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-secrets-run-" });

  it(
    "--follow --write-back with the secrets file in a credentials directory, as the units run it: it writes back, and no secret is in its /proc",
    { timeout: 300_000 },
    async () => {
      const start = Math.floor(Date.now() / 1000);
      await smallBoincDb(rig.maria, "secrets", start, []);
      await account(rig.maria, "secrets", "SELECT, UPDATE, INSERT, DELETE, CREATE");
      const root = await rig.maria.root("secrets");
      const token = await createProject(rig.server.base, ADMIN, "secrets");
      const encoded = encodeURIComponent(PASSWORD);
      // What LoadCredential= leaves: a directory of the service's, the file in it the owner's alone (0400).
      const credentials = join(rig.work, "credentials");
      await mkdir(credentials, { mode: 0o700 });
      const secretsFile = await fileOf(
        credentials,
        "secrets",
        `# as /etc/cobblestone-bridge/PROJECT.secrets\nCOBBLESTONE_TOKEN=${token}\nBOINC_DB_URL=mysql://${ACCOUNT}:${encoded}@127.0.0.1:${rig.maria.port}/secrets\n`,
        0o400,
      );
      // Nothing of the secrets in the environment the bridge starts with (the test runner's own, and the credentials directory).
      for (const value of Object.values(process.env)) expect(value ?? "").not.toContain(token);
      const bridge = startBridgeCli(
        [
          "--url",
          rig.server.base,
          "--project",
          "secrets",
          "--secrets-file",
          secretsFile,
          "--state",
          join(rig.work, "secrets.json"),
          "--write-back",
          "--switch-time",
          String(start - 60),
          "--follow",
          "--poll-every",
          "1",
        ],
        { CREDENTIALS_DIRECTORY: credentials },
      );
      for (let id = 1; id <= 3; id++) await validateNoCredit(root, id);
      // The bridge creates its table on its first --write-back run: none yet is 0 written.
      const written = () =>
        root.query("SELECT COUNT(*) AS n FROM cobblestone_writeback").then(
          ([rows]) => Number((rows as { n: number }[])[0]!.n),
          () => 0,
        );
      for (let i = 0; i < 600 && (await written()) < 3 && bridge.child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await written(), bridge.stderr()).toBe(3);

      // What another user of the machine would see (cmdline: ps; environ: the owner and root only, and nothing there either).
      const pid = bridge.child.pid!;
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").join(" ");
      const environ = (await readFile(`/proc/${pid}/environ`, "utf8")).split("\0").join("\n");
      expect(cmdline).toContain(`--secrets-file ${secretsFile}`);
      expect(environ).toContain(`CREDENTIALS_DIRECTORY=${credentials}`);
      for (const secret of [token, PASSWORD, encoded, "p%w@d"]) {
        expect(cmdline).not.toContain(secret);
        expect(environ).not.toContain(secret);
      }
      bridge.child.kill("SIGTERM");
      expect(await bridge.exited, bridge.stderr()).toBe(0);
      for (const secret of [token, PASSWORD, encoded]) {
        expect(bridge.stdout()).not.toContain(secret);
        expect(bridge.stderr()).not.toContain(secret);
      }
      expect(bridge.stdout()).toMatch(/wrote back 3 results/);
      await root.end();
    },
  );

  it("a one-shot run with --secrets-file alone: posts; the same file open to others is refused before anything is read", async () => {
    const start = Math.floor(Date.now() / 1000) - 120;
    await smallBoincDb(rig.maria, "secrets_once", start, [{}, {}]);
    const token = await createProject(rig.server.base, ADMIN, "secrets-once");
    const encoded = encodeURIComponent(PASSWORD);
    await account(rig.maria, "secrets_once", "SELECT");
    const secretsFile = await fileOf(
      rig.work,
      "once.secrets",
      `COBBLESTONE_TOKEN=${token}\nBOINC_DB_URL='mysql://${ACCOUNT}:${encoded}@127.0.0.1:${rig.maria.port}/secrets_once'\n`,
    );
    const args = [
      "--url",
      rig.server.base,
      "--project",
      "secrets-once",
      "--secrets-file",
      secretsFile,
      "--state",
      join(rig.work, "once.json"),
    ];
    await chmod(secretsFile, 0o644);
    const refused = startBridgeCli(args, {});
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toContain(`bridge: --secrets-file ${secretsFile} is open to its group or to other users (mode 0644)`);
    expect(refused.stderr()).not.toContain(token);
    await chmod(secretsFile, 0o600);
    const once = startBridgeCli(args, {});
    expect(await once.exited, once.stderr()).toBe(0);
    expect(once.stdout()).toMatch(/^posted 2 validated results in /);
    expect(`${once.stdout()}${once.stderr()}`).not.toContain(token);
  });
});
