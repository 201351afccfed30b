/**
 * docs/bridge.md's two checklists, run as written: the blocks are read out of the doc and run as
 * an admin runs them, with only their placeholders filled in (the account's host, the database,
 * the password, the tokens, the URL, T). From nothing to a live project: the read-only account
 * and the mod_time index (step 3), the project and the bridge's ingest token by the doc's own
 * curl lines (4), the secrets file (5), the dry run and the backfill by the installed package's
 * `cobblestone-bridge` on the machine's Node (7, 8), and the shipped units installed by step 10's
 * block and started as systemd starts the timer's service. Then the switch-over: step 2's
 * least-privilege account, T by the database's clock, `--no_credit` results, and step 5's
 * settings, run by the same unit. No secret is on a command line or in an environment at any
 * point; systemd itself does not run here (test/bridge/systemd-exec.ts does what it would).
 */
import { chmod, copyFile, mkdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import { smallBoincDb } from "./boinc-fixture";
import { blockWith, docSection, fencedBlocks, fillIn, shellCommands } from "./bridge-doc";
import { buildTarball, type Exit, installTarball, machinePath, run } from "./installed-bridge";
import { sqlTime } from "./load-trace";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { environmentFile, execStart, unitSettings } from "./systemd-exec";

const ADMIN = "bridge-checklists-admin-token";
/** The doc's names: the project's slug, and the database (`boinc_db` in the doc's blocks). */
const SLUG = "myproject";
const DATABASE = "checklist_db";
const READER_PASSWORD = "r3ad-only";
const WRITER_PASSWORD = "wr1te-credit";
/** What BOINC's validator granted each result before the switch. */
const BOINC_CREDIT = 1.5;
const available = suiteNeeds("docs/bridge.md's checklists, run as written", import.meta.url, "mariadb-server", mariadbAvailable());

describe.skipIf(!available)("docs/bridge.md's checklists, run as written", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-checklists-" });
  let home: string;
  let prefix: string;
  let bin: string;
  /** The machine's root as step 10 writes to it: /etc and /var/lib under here. */
  let rootfs: string;
  const secrets = { ingest: "", manage: "" };

  beforeAll(async () => {
    home = join(rig.work, "home");
    rootfs = join(rig.work, "rootfs");
    await mkdir(home, { recursive: true });
    prefix = join(rig.work, "usr-local");
    bin = await installTarball(await buildTarball(), prefix);
  });

  /** A shell line as the admin types it: the machine's PATH (its own Node) with the installed bridge on it, the admin's HOME, and `vars`; nothing secret. */
  const shell = (script: string, vars: Record<string, string> = {}): Promise<Exit> =>
    run("bash", ["-e", "-c", script], {
      cwd: home,
      env: { PATH: `${join(prefix, "bin")}:${machinePath()}`, HOME: home, NPM_CONFIG_PREFIX: prefix, ...vars },
    });

  const dbNow = async () => {
    const conn = await rig.maria.root();
    const [rows] = await conn.query("SELECT UNIX_TIMESTAMP() AS t");
    await conn.end();
    return Number((rows as { t: number }[])[0]!.t);
  };

  /** One more result of app alpha on host 7, on a workunit of its own, decided at `at`, as BOINC's validator leaves it. */
  async function validated(id: number, at: number, grantedCredit: number): Promise<void> {
    const conn = await rig.maria.root(DATABASE);
    await conn.query(
      "INSERT INTO workunit (id, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults, canonical_credit) VALUES (?, 1, ?, 1e13, 1e14, 1, ?)",
      [id, `wu${id}`, grantedCredit],
    );
    await conn.query("INSERT INTO result SET ?", [
      {
        id,
        workunitid: id,
        outcome: OUTCOME.success,
        hostid: 7,
        userid: 3,
        teamid: 5,
        sent_time: at - 5000,
        received_time: at,
        cpu_time: 900,
        validate_state: VALIDATE_STATE.valid,
        granted_credit: grantedCredit,
        elapsed_time: 1000,
        flops_estimate: 1e10,
        app_version_id: 1,
        mod_time: sqlTime(at),
      },
    ]);
    await conn.end();
  }

  /** The ingest token of step 4, and the account of step 3 or step 2, in the secrets file's two lines. */
  const dbUrl = (account: string, password: string) => `mysql://${account}:${password}@127.0.0.1:${rig.maria.port}/${DATABASE}`;

  /** `cobblestone-bridge-once@myproject.service` as systemd starts it (the timer's every minute) from what step 10 installed. */
  async function startOnceUnit(): Promise<Exit & { argv: string[]; env: Record<string, string> }> {
    const units = join(rootfs, "etc/systemd/system");
    const unit = unitSettings(await readFile(join(units, "cobblestone-bridge-once@.service"), "utf8"));
    const inRoot = (path: string) => join(rootfs, path.replaceAll("%i", SLUG));
    // EnvironmentFile=: the settings.
    const conf = environmentFile(await readFile(inRoot(unit.get("EnvironmentFile")![0]!), "utf8"));
    // LoadCredential=secrets:PATH: systemd copies the file, as root, into the unit's credentials directory.
    const [credential, source] = unit.get("LoadCredential")![0]!.split(":") as [string, string];
    const credentials = join(rig.work, "credentials");
    await rm(credentials, { recursive: true, force: true });
    await mkdir(credentials, { mode: 0o700 });
    await copyFile(inRoot(source), join(credentials, credential));
    await chmod(join(credentials, credential), 0o400);
    // StateDirectory= with DynamicUser=yes: /var/lib/NAME is a link to /var/lib/private/NAME, where step 10 put the cursor.
    const name = unit.get("StateDirectory")![0]!;
    if (!existsSync(join(rootfs, "var/lib", name))) await symlink(join("private", name), join(rootfs, "var/lib", name));
    const { command, args } = execStart(
      unit.get("ExecStart")![0]!,
      { instance: SLUG, credentials, stateRoot: join(rootfs, "var/lib") },
      conf,
    );
    // Step 2 of the first checklist: installed elsewhere, the executable is linked to /usr/local/bin.
    expect(command).toBe("/usr/local/bin/cobblestone-bridge");
    const env = { ...conf, CREDENTIALS_DIRECTORY: credentials, PATH: machinePath() };
    const exit = await run(bin, args, { cwd: "/", env });
    return { ...exit, argv: args, env };
  }

  it("from nothing to a live project: steps 3 to 10, the backfill by the installed bridge and the next runs by the shipped timer's unit", async () => {
    const section = docSection("Checklist: from nothing to a live project");
    const t0 = (await dbNow()) - 3600;
    await smallBoincDb(rig.maria, DATABASE, t0, [
      { granted_credit: BOINC_CREDIT },
      { granted_credit: BOINC_CREDIT },
      { granted_credit: BOINC_CREDIT },
    ]);

    // Step 3: the read-only account and the mod_time index, run as root.
    const root = await rig.maria.root();
    await root.query(
      fillIn(blockWith(section, "sql", "CREATE INDEX res_mod_time"), {
        "'bridge-host'": "'127.0.0.1'",
        "boinc_db.": `${DATABASE}.`,
        "IDENTIFIED BY '…'": `IDENTIFIED BY '${READER_PASSWORD}'`,
      }),
    );
    await root.end();

    // Step 4: the project and the bridge's ingest token, by the doc's curl lines; each answer has the fields its comment shows.
    const step4 = blockWith(section, "sh", "curl -s -X POST $B/v1/projects ");
    const vars: Record<string, string> = { ADMIN_TOKEN: ADMIN };
    const answers: Record<string, unknown>[] = [];
    for (const line of shellCommands(step4)) {
      const assignment = /^(\w+)=(\S+)/.exec(line);
      if (assignment?.[1] === "B") vars.B = rig.server.base;
      else if (assignment?.[1] === "MANAGE_TOKEN") {
        expect(assignment[2]).toBe("cbp_…");
        vars.MANAGE_TOKEN = answers[0]!.token as string;
      } else {
        const exit = await shell(line, vars);
        expect(exit.code, exit.stderr).toBe(0);
        answers.push(JSON.parse(exit.stdout) as Record<string, unknown>);
      }
    }
    const shown = step4
      .split("\n")
      .filter((line) => line.startsWith("# {"))
      .map((line) => [...line.matchAll(/"(\w+)":/g)].map((m) => m[1]!));
    expect(shown).toHaveLength(2);
    expect(answers.map((a, i) => shown[i]!.filter((k) => !(k in a)))).toEqual([[], []]);
    expect(answers[0]).toMatchObject({ slug: SLUG });
    expect(answers[1]).toMatchObject({ scope: "ingest" });
    secrets.manage = answers[0]!.token as string;
    secrets.ingest = answers[1]!.token as string;

    // Step 5: the secrets file, made empty and the admin's alone, then the doc's two lines as the editor leaves them.
    const step5 = blockWith(section, "sh", "install -m 600 /dev/null");
    for (const line of shellCommands(step5).filter((l) => !l.startsWith("editor "))) expect((await shell(line)).code).toBe(0);
    const file = join(home, "myproject.secrets");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const lines = fencedBlocks(section).find((b) => b.lang === "" && b.text.includes("COBBLESTONE_TOKEN="))!.text;
    await writeFile(
      file,
      fillIn(lines, {
        "cbp_…": secrets.ingest,
        "cobblestone:PASSWORD@db-replica:3306/boinc_db": dbUrl("cobblestone", READER_PASSWORD).slice(8),
      }),
    );

    // Steps 7 and 8: the dry run posts and saves nothing; the backfill posts BOINC's three results and keeps the cursor in the default state file.
    const [dryRun, backfill] = fencedBlocks(section).filter((b) => b.lang === "sh" && b.text.startsWith("cobblestone-bridge "));
    expect(dryRun!.text).toContain("--dry-run");
    const stateFile = join(home, ".local/state/cobblestone/bridge-myproject.json");
    const dry = await shell(dryRun!.text, { B: rig.server.base });
    expect(dry.code, dry.stderr).toBe(0);
    expect(existsSync(stateFile)).toBe(false);
    const first = await shell(backfill!.text, { B: rig.server.base });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^posted 3 validated results in /);
    // Step 3's index is there: no advice to create it.
    expect(first.stderr).not.toMatch(/no_mod_time_index|CREATE INDEX/);
    expect(existsSync(stateFile)).toBe(true);

    // Step 10 as root, with / at rootfs, a machine with systemd's folders (systemctl only noted: systemd does not run here).
    for (const dir of ["etc/systemd/system", "var/lib"]) await mkdir(join(rootfs, dir), { recursive: true });
    const step10 = blockWith(section, "sh", "systemctl daemon-reload");
    const script = fillIn(step10, { "H=/home/you": `H=${home}` })
      .replaceAll(" /etc/", ` ${rootfs}/etc/`)
      .replaceAll(" /var/lib/", ` ${rootfs}/var/lib/`);
    const installed = await shell(`systemctl() { echo "systemctl $*" >> ${rootfs}/systemctl.log; }\n${script}`);
    expect(installed.code, installed.stderr).toBe(0);
    const enabled = await readFile(join(rootfs, "systemctl.log"), "utf8");
    expect(enabled).toContain("systemctl enable --now cobblestone-bridge-once@myproject.timer");
    expect(existsSync(join(rootfs, "etc/systemd/system/cobblestone-bridge-once@.timer"))).toBe(true);
    expect((await stat(join(rootfs, "etc/cobblestone-bridge/myproject.secrets"))).mode & 0o777).toBe(0o600);
    // "then set COBBLESTONE_URL in it"
    const confFile = join(rootfs, "etc/cobblestone-bridge/myproject.conf");
    await writeFile(
      confFile,
      fillIn(await readFile(confFile, "utf8"), { "COBBLESTONE_URL=https://cobblestone.example.org": `COBBLESTONE_URL=${rig.server.base}` }),
    );

    // The timer's next run: it carries on from the backfill's cursor, so it posts the one result validated since.
    // (Two minutes ago: a one-shot run reads results at least SETTLE_SECONDS old.)
    await validated(4, (await dbNow()) - 120, BOINC_CREDIT);
    const next = await startOnceUnit();
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/^posted 1 validated results in /);
    const seen = JSON.stringify([next.argv, next.env]);
    for (const secret of [secrets.ingest, secrets.manage, READER_PASSWORD]) expect(seen).not.toContain(secret);
  });

  it("the switch-over: step 2's account, T by the database's clock, --no_credit results written back by step 5's settings", async () => {
    const section = docSection("Switch-over checklist");
    // Step 2: the least-privilege writing account, run as root.
    const root = await rig.maria.root();
    await root.query(
      fillIn(blockWith(section, "sql", "cobblestone_wb"), {
        "'bridge-host'": "'127.0.0.1'",
        "boinc_db.": `${DATABASE}.`,
        "IDENTIFIED BY '…'": `IDENTIFIED BY '${WRITER_PASSWORD}'`,
      }),
    );
    await root.end();

    // Step 4: every validator stopped, T by the database's clock; started again with --no_credit, they validate and grant nothing.
    // T a minute ago, after BOINC's last grant (result 4's, two minutes ago): a one-shot run reads results at least SETTLE_SECONDS old.
    const T = (await dbNow()) - 60;
    await validated(5, T + 1, 0);
    await validated(6, T + 1, 0);

    // Step 5: the conf's options as the doc gives them (T put in), the writing account in the secrets file.
    const options = shellCommands(blockWith(section, "sh", "BRIDGE_OPTIONS=")).find((l) => l.startsWith("BRIDGE_OPTIONS="))!;
    const iso = new Date(T * 1000).toISOString().replace(".000Z", "Z");
    const confFile = join(rootfs, "etc/cobblestone-bridge/myproject.conf");
    const conf = await readFile(confFile, "utf8");
    expect(conf).toMatch(/^BRIDGE_OPTIONS=$/m);
    await writeFile(confFile, conf.replace(/^BRIDGE_OPTIONS=$/m, fillIn(options, { "2026-11-25T21:00:00Z": iso })));
    const secretsFile = join(rootfs, "etc/cobblestone-bridge/myproject.secrets");
    const text = await readFile(secretsFile, "utf8");
    await writeFile(secretsFile, fillIn(text, { [dbUrl("cobblestone", READER_PASSWORD)]: dbUrl("cobblestone_wb", WRITER_PASSWORD) }));

    const switched = await startOnceUnit();
    expect(switched.code, switched.stderr).toBe(0);
    expect(switched.argv).toEqual(expect.arrayContaining(["--write-back", "--switch-time", iso]));
    expect(switched.stdout).toContain("; wrote back 2 results (0 written before, 0 skipped,");
    // Step 2's account may write credit and nothing else: no warning about whose account writes.
    expect(switched.stderr).not.toMatch(/write_back_account|project's own database account|may do more/);
    const seen = JSON.stringify([switched.argv, switched.env]);
    for (const secret of [secrets.ingest, WRITER_PASSWORD]) expect(seen).not.toContain(secret);

    const conn = await rig.maria.root(DATABASE);
    const [rows] = await conn.query(
      "SELECT r.id, r.granted_credit, w.canonical_credit, c.credit AS written FROM result r JOIN workunit w ON w.id = r.workunitid LEFT JOIN cobblestone_writeback c ON c.result_id = r.id ORDER BY r.id",
    );
    const results = rows as { id: number; granted_credit: number; canonical_credit: number; written: number | null }[];
    const [[host]] = (await conn.query("SELECT total_credit FROM host WHERE id = 7")) as unknown as [{ total_credit: number }[]];
    await conn.end();
    // BOINC's results keep its credit and were not written; the two after T have the service's, written once, workunit and all.
    expect(results.filter((r) => r.id <= 4).map((r) => [r.granted_credit, r.written])).toEqual(Array(4).fill([BOINC_CREDIT, null]));
    const after = results.filter((r) => r.id > 4);
    expect(after.map((r) => r.id)).toEqual([5, 6]);
    for (const r of after) {
      expect(r.granted_credit).toBeGreaterThan(0);
      expect(r.written).toBe(r.granted_credit);
      expect(r.canonical_credit).toBe(r.granted_credit);
    }
    // The host's total had only BOINC's additions made outside this database (none here): now it holds the two written.
    const sum = after.reduce((s, r) => s + r.granted_credit, 0);
    expect(Math.abs(host!.total_credit - sum) / sum).toBeLessThan(1e-12);
  });
});
