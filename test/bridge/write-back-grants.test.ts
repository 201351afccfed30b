/**
 * The switch-over checklist's GRANT block, read out of docs/bridge.md and run as it stands on
 * MariaDB, gives --write-back every privilege it uses; with any one of its lines revoked, the
 * bridge refuses before writing anything, naming each missing privilege with the GRANT that
 * gives it (issue 42 item 3). The test reads the doc: the doc and the test cannot drift apart.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import mysql from "mysql2/promise";
import { parseOptions } from "../../bridge/command-line/cli-options";
import { BridgeError } from "../../bridge/shared/errors";
import type { BridgeEvent } from "../../bridge/telling/event-log";
import { writeBackTables } from "../../bridge/write-back/write-back-privileges";
import { bridgeOptions, runBridge } from "../../bridge/running/run";
import { smallBoincDb } from "./boinc-fixture";
import { mariadbAvailable } from "./mariadb";
import { blockWith, docSection, fillIn } from "./bridge-doc";
import { bridgeRig } from "./rig";
import { createProject } from "./service";

const ADMIN = "bridge-writeback-grants-admin-token";
const T = 1_700_000_000;
const PASSWORD = "gr4nted";
/** What the tests connect as: the doc's account, at the address the bridge comes from here. */
const ACCOUNT = "'cobblestone_wb'@'127.0.0.1'";
const available = suiteNeeds("the switch-over checklist's GRANTs", import.meta.url, "mariadb-server", mariadbAvailable());

/** The block of "Switch-over checklist" step 2, with only its placeholders filled in: the account's host, the database, the password. */
function filledIn(database: string): string {
  return fillIn(blockWith(docSection("Switch-over checklist"), "sql", "cobblestone_wb"), {
    "'bridge-host'": "'127.0.0.1'",
    "boinc_db.": `${database}.`,
    "IDENTIFIED BY '…'": `IDENTIFIED BY '${PASSWORD}'`,
  });
}

/** Each GRANT line of the block, the table it is on, and the columns of its column-level UPDATE. */
function grantLines(database: string) {
  return filledIn(database)
    .split("\n")
    .filter((line) => line.startsWith("GRANT "))
    .map((line) => {
      const m = /^GRANT ([A-Z, ]+?)(?: \(([a-z_, ]+)\))? ON \w+\.(\S+) TO \S+;$/.exec(line);
      if (!m) throw new Error(`unexpected GRANT line: ${line}`);
      return { line, privileges: m[1]!, table: m[3]!, columns: m[2]?.split(", ") ?? [] };
    });
}

/** The GRANT statements of a refusal, up to ON (privileges, column lists and all). */
const grantsIn = (message: string) => message.match(/GRANT [A-Z]+(?: \([a-z_, ]+\))?(?:, [A-Z]+(?: \([a-z_, ]+\))?)* ON /g);

describe.skipIf(!available)("the switch-over checklist's GRANTs", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-wb-grants-" });

  /**
   * A small BOINC database as a --no_credit validator leaves it (three results granted 0, host 7
   * of user 3 in team 5), and the doc's account made afresh with the block, as the admin runs it.
   */
  async function granted(database: string): Promise<string> {
    await smallBoincDb(rig.maria, database, T, [{ granted_credit: 0 }, { granted_credit: 0 }, { granted_credit: 0 }]);
    const root = await rig.maria.root();
    await root.query(`DROP USER IF EXISTS ${ACCOUNT}`);
    await root.query(filledIn(database));
    await root.end();
    return `mysql://cobblestone_wb:${PASSWORD}@127.0.0.1:${rig.maria.port}/${database}`;
  }

  /** A --write-back --credit-by-app run of `slug` (a project of its own on the service, made on first use). */
  const tokens = new Map<string, string>();
  const writeBack = async (dsn: string, slug: string) => {
    if (!tokens.has(slug)) tokens.set(slug, await createProject(rig.server.base, ADMIN, slug));
    return runBridge(
      bridgeOptions(
        { db: dsn, url: rig.server.base, project: slug, token: tokens.get(slug)!, stateFile: join(rig.work, `${slug}.json`) },
        { log: () => undefined, writeBack: true, creditByApp: true, switchTime: T - 100 },
      ),
    );
  };

  /** What the write-back leaves in the database: credit on results, the host and per app, and the bridge's tables. */
  async function written(database: string) {
    const root = await rig.maria.root(database);
    const [[r]] = (await root.query(
      `SELECT (SELECT SUM(granted_credit) FROM result) AS results, (SELECT total_credit FROM host WHERE id = 7) AS host,
              (SELECT COUNT(*) FROM credit_user) AS credit_user,
              (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'cobblestone%') AS own_tables`,
    )) as unknown as [{ results: number; host: number; credit_user: number; own_tables: number }[]];
    await root.end();
    return { results: Number(r!.results), host: Number(r!.host), credit_user: Number(r!.credit_user), own_tables: Number(r!.own_tables) };
  }

  it("run as it stands, the block lets a --write-back --credit-by-app run write; CREATE is needed only while a table is missing", async () => {
    const dsn = await granted("grants_full");
    const report = await writeBack(dsn, "grants-full");
    expect(report.write_back).toMatchObject({ written: 3 });
    const after = await written("grants_full");
    // Each result's credit is the host's too (host 7 ran all three), and user 3 has one per-app row (app alpha).
    expect(after.results).toBeGreaterThan(0);
    expect(Math.abs(after.host - after.results) / after.results).toBeLessThan(1e-12);
    expect(after).toMatchObject({ credit_user: 1, own_tables: 2 });

    const root = await rig.maria.root();
    for (const table of ["cobblestone_writeback", "cobblestone_writeback_switch"])
      await root.query(`REVOKE CREATE ON grants_full.${table} FROM ${ACCOUNT}`);
    await root.end();
    const again = await writeBack(dsn, "grants-full");
    expect(again.write_back).toMatchObject({ written: 0 });
  });

  const lines = grantLines("grants_line");
  it("the block has the lines the write-back needs, UPDATE on exactly the columns the write-back writes", () => {
    // SELECT on the database, UPDATE on 5 BOINC tables, 2 per-app tables, the bridge's 2 tables.
    expect(lines.map((l) => l.table)).toEqual([
      "*",
      "result",
      "workunit",
      "host",
      "user",
      "team",
      "credit_user",
      "credit_team",
      "cobblestone_writeback",
      "cobblestone_writeback_switch",
    ]);
    // UPDATE in BOINC's tables only on the columns the write-back writes (the probe's list), nowhere table-wide.
    const updates = Object.fromEntries(writeBackTables(true).map((t) => [t.table, t.update ?? []]));
    for (const { table, privileges, columns } of lines.filter((l) => l.table !== "*")) {
      expect(columns, table).toEqual(updates[table]);
      expect(privileges.split(", ").filter((p) => p === "UPDATE").length === 0 || columns.length > 0, table).toBe(true);
    }
  });

  it("what the block gives writes nothing but credit: an authenticator, a password, a result's state are refused", async () => {
    const dsn = await granted("grants_least");
    const conn = await mysql.createConnection(dsn);
    const refused = async (sql: string) =>
      conn.query(sql).then(
        () => "allowed",
        (e: { code?: string }) => e.code,
      );
    expect(await refused("UPDATE user SET authenticator = 'x' WHERE id = 3")).toBe("ER_COLUMNACCESS_DENIED_ERROR");
    expect(await refused("UPDATE user SET passwd_hash = 'x' WHERE id = 3")).toBe("ER_COLUMNACCESS_DENIED_ERROR");
    expect(await refused("UPDATE user SET email_addr = 'x' WHERE id = 3")).toBe("ER_COLUMNACCESS_DENIED_ERROR");
    expect(await refused("UPDATE result SET server_state = 0 WHERE id > 0")).toBe("ER_COLUMNACCESS_DENIED_ERROR");
    expect(await refused("UPDATE host SET userid = 1 WHERE id = 7")).toBe("ER_COLUMNACCESS_DENIED_ERROR");
    expect(await refused("DELETE FROM result")).toBe("ER_TABLEACCESS_DENIED_ERROR");
    expect(await refused("INSERT INTO user (create_time, email_addr, cross_project_id) VALUES (1, 'a', 'b')")).toBe(
      "ER_TABLEACCESS_DENIED_ERROR",
    );
    // And the locking read the write-back does, on the columns it reads, with column-level UPDATE on the table (MariaDB: SELECT alone).
    await conn.query("START TRANSACTION");
    const [rows] = await conn.query("SELECT id, teamid, expavg_credit, expavg_time FROM user WHERE id = 3 FOR UPDATE");
    expect(rows).toHaveLength(1);
    await conn.query("ROLLBACK");
    await conn.end();
  });

  for (const [i, { line: named }] of lines.entries()) {
    it(`without \`${named}\`: refused, the line itself named as the fix; nothing written`, async () => {
      const database = `grants_line_${i}`;
      const dsn = await granted(database);
      const { line } = grantLines(database)[i]!;
      const root = await rig.maria.root();
      await root.query(line.replace(/^GRANT /, "REVOKE ").replace(" TO ", " FROM "));
      await root.end();
      const e = await writeBack(dsn, `grants-line-${i}`).then(
        () => new Error("no refusal"),
        (e: unknown) => e as Error,
      );
      expect(e).toBeInstanceOf(BridgeError);
      // The line itself, as the fix (the bridge's tables are not there yet, a first run: CREATE is needed too), and no other GRANT.
      expect(e.message).toContain(line);
      expect(grantsIn(e.message), e.message).toEqual([line.slice(0, line.indexOf(" ON ") + 4)]);
      expect(await written(database)).toEqual({ results: 0, host: 0, credit_user: 0, own_tables: 0 });
    });
  }

  // One column of each column-level line revoked (a different one each time): that column alone is named.
  for (const [i, { table, columns }] of lines.entries()) {
    if (columns.length === 0) continue;
    const column = columns[i % columns.length]!;
    it(`without UPDATE (${column}) on ${table}: refused, that column alone named; nothing written`, async () => {
      const database = `grants_column_${i}`;
      const dsn = await granted(database);
      const root = await rig.maria.root();
      await root.query(`REVOKE UPDATE (${column}) ON ${database}.${table} FROM ${ACCOUNT}`);
      await root.end();
      const e = await writeBack(dsn, `grants-column-${i}`).then(
        () => new Error("no refusal"),
        (e: unknown) => e as Error,
      );
      expect(e).toBeInstanceOf(BridgeError);
      expect(e.message).toContain(`${table}: no UPDATE (${column}): GRANT UPDATE (${column}) ON ${database}.${table} TO ${ACCOUNT};`);
      expect(grantsIn(e.message), e.message).toEqual([`GRANT UPDATE (${column}) ON `]);
      expect(await written(database)).toEqual({ results: 0, host: 0, credit_user: 0, own_tables: 0 });
    });
  }

  describe("the write-back's account (issue 49)", () => {
    const PROJECT_USER = "boincadm";
    const PROJECT_PASSWORD = "pr0ject";
    /** Everything BOINC's daemons may do, as the write-back should not: what each run tells of an account that may. */
    const BEYOND =
      "UPDATE user.authenticator, UPDATE user.passwd_hash, UPDATE user.email_addr, UPDATE result.server_state, DELETE on result";

    /** The block's account on a fresh database, the project's own account beside it (every privilege, as make_project leaves it), and its config.xml. */
    async function project(database: string) {
      const dsn = await granted(database);
      const root = await rig.maria.root();
      await root.query(`CREATE USER IF NOT EXISTS '${PROJECT_USER}'@'127.0.0.1' IDENTIFIED BY '${PROJECT_PASSWORD}'`);
      await root.query(`GRANT ALL PRIVILEGES ON ${database}.* TO '${PROJECT_USER}'@'127.0.0.1'`);
      await root.end();
      const config = join(rig.work, `${database}-config.xml`);
      await writeFile(
        config,
        `<boinc><config><db_name>${database}</db_name><db_host>127.0.0.1:${rig.maria.port}</db_host><db_user>${PROJECT_USER}</db_user><db_passwd>${PROJECT_PASSWORD}</db_passwd><credit_by_app/></config></boinc>`,
      );
      return { dsn, config };
    }

    /** A --write-back run as the command line makes it, its events kept. */
    async function run(argv: string[], env: Record<string, string>, slug: string) {
      if (!tokens.has(slug)) tokens.set(slug, await createProject(rig.server.base, ADMIN, slug));
      const options = await parseOptions(
        [
          "--url",
          rig.server.base,
          "--project",
          slug,
          "--state",
          join(rig.work, `${slug}.json`),
          "--write-back",
          "--switch-time",
          String(T - 100),
          ...argv,
        ],
        { COBBLESTONE_TOKEN: tokens.get(slug)!, ...env },
      );
      const events: BridgeEvent[] = [];
      const report = await runBridge({ ...options, progress: false, events: (e) => events.push(e) });
      const start = events.find((e) => e.event === "start")!.fields!;
      return { report, start, warnings: events.filter((e) => e.event === "write_back_account") };
    }

    it("the checklist's account (BOINC_DB_URL beside --boinc-config): no warning, and the start event says whose account writes", async () => {
      const { dsn, config } = await project("account_own");
      const { report, start, warnings } = await run(["--boinc-config", config], { BOINC_DB_URL: dsn }, "account-own");
      expect(report.write_back).toMatchObject({ written: 3 });
      expect(start).toMatchObject({ write_back_account: ACCOUNT, write_back_project_account: false, write_back_beyond: null });
      expect(warnings).toEqual([]);
    });

    it("config.xml's db_user: refused unless --project-account says it is meant; then it writes, and warns", async () => {
      const { config } = await project("account_project");
      const refused = await run(["--boinc-config", config], {}, "account-project").catch((e: unknown) => e as Error);
      expect(refused).toBeInstanceOf(BridgeError);
      expect((refused as Error).message).toContain("config.xml's db_user 'boincadm', the project's own database account");
      expect(await written("account_project")).toEqual({ results: 0, host: 0, credit_user: 0, own_tables: 0 });

      const { report, start, warnings } = await run(["--boinc-config", config, "--project-account"], {}, "account-project");
      expect(report.write_back).toMatchObject({ written: 3 });
      const account = `'${PROJECT_USER}'@'127.0.0.1'`;
      expect(start).toMatchObject({ write_back_account: account, write_back_project_account: true, write_back_beyond: BEYOND });
      expect(warnings).toEqual([
        expect.objectContaining({
          level: "warn",
          fields: { account, project_account: true, beyond: BEYOND },
          msg: expect.stringMatching(
            /^--write-back writes as the project's own database account \(config\.xml's db_user 'boincadm', logged in as 'boincadm'@'127\.0\.0\.1'\), which may UPDATE user\.authenticator, .*: the write-back needs only the GRANTs of docs\/bridge\.md's "Switch-over checklist" \(step 2\)/,
          ),
        }),
      ]);
    });

    it("a URL of config.xml's db_user is the project's own account too; another account with more than the GRANTs is warned of as well", async () => {
      const { config } = await project("account_url");
      const projectDsn = `mysql://${PROJECT_USER}:${PROJECT_PASSWORD}@127.0.0.1:${rig.maria.port}/account_url`;
      const same = await run(["--boinc-config", config], { BOINC_DB_URL: projectDsn }, "account-url");
      expect(same.start).toMatchObject({ write_back_project_account: true, write_back_beyond: BEYOND });
      expect(same.warnings).toHaveLength(1);

      // An account of its own, but table-wide: it may write what the write-back never writes.
      const root = await rig.maria.root();
      await root.query("CREATE USER IF NOT EXISTS 'wide'@'127.0.0.1' IDENTIFIED BY 'w1de'");
      await root.query("GRANT SELECT, UPDATE, INSERT, DELETE, CREATE ON account_url.* TO 'wide'@'127.0.0.1'");
      await root.end();
      const wide = await run([], { BOINC_DB_URL: `mysql://wide:w1de@127.0.0.1:${rig.maria.port}/account_url` }, "account-url");
      expect(wide.start).toMatchObject({
        write_back_account: "'wide'@'127.0.0.1'",
        write_back_project_account: false,
        write_back_beyond: BEYOND,
      });
      expect(wide.warnings).toEqual([
        expect.objectContaining({
          msg: expect.stringMatching(
            /^--write-back's database account 'wide'@'127\.0\.0\.1' may do more than write credit \(UPDATE user\.authenticator, /,
          ),
        }),
      ]);
    });
  });
});
