/**
 * The write-back's safety net (issue 48): `cobblestone-bridge audit` lists every valid result
 * that is unpaid, paid outside BOINC's bounds, paid differently from the service's grant, or
 * paid by someone else after the switch point; and a --write-back run's metric
 * cobblestone_bridge_unpaid_results counts the unpaid ones, whatever its cursor says. BOINC's
 * database (MariaDB with BOINC's schema) is the input, set up here row by row.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { audit, type Finding } from "../../bridge/write-back/audit";
import { VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import { renderMetrics } from "../../bridge/telling/metrics";
import { bridgeOptions, runBridge } from "../../bridge/running/run";
import { normalizeServiceUrl } from "../../bridge/service/service-url";
import { BridgeStatus } from "../../bridge/telling/status";
import { countUnpaid } from "../../bridge/write-back/unpaid";
import { CREATE_SWITCH_TABLE, CREATE_TABLE, SWITCH_TABLE, WRITEBACK_TABLE } from "../../bridge/database/write-back-tables";
import { send } from "../support/send";
import { smallBoincDb } from "./boinc-fixture";
import { startBridgeCli } from "./bridge-cli";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject, createProjectTokens } from "./service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-audit-admin-token";
/** The switch point. */
const T = 1_700_000_000;
const AFTER = T + 10;
const available = suiteNeeds("the write-back's audit and unpaid count", import.meta.url, "mariadb-server", mariadbAvailable());

describe.skipIf(!available)("the write-back's audit and unpaid count", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-audit-" });

  /** The bridge's tables as a --write-back run of `slug` leaves them: the switch point T, and a row per result it wrote. */
  async function bridgeTables(name: string, slug: string, written: [resultId: number, credit: number][]) {
    const conn = await rig.maria.root(name);
    await conn.query(`${CREATE_TABLE}; ${CREATE_SWITCH_TABLE}`);
    await conn.query(`INSERT INTO ${SWITCH_TABLE} (project, switch_time) VALUES (?, ?)`, [slug, T]);
    for (const [id, credit] of written) {
      await conn.query(`INSERT INTO ${WRITEBACK_TABLE} (result_id, workunit_id, credit, grant_time) VALUES (?, ?, ?, ?)`, [
        id,
        id,
        credit,
        AFTER + 5,
      ]);
    }
    await conn.end();
  }

  /** Validated "now" by the database's clock (a minute ahead, so that no run started after it reads it yet): under 5 minutes ago. */
  async function validatedJustNow(name: string, id: number) {
    const conn = await rig.maria.root(name);
    await conn.query("UPDATE result SET mod_time = NOW() + INTERVAL 1 MINUTE WHERE id = ?", [id]);
    await conn.end();
  }

  it("lists an unpaid result, credits out of BOINC's and the service's bounds, a mismatch and a payment by another; exit 3", async () => {
    // Every result on its own workunit of alpha (result 3's of beta), validated at T + id - 1
    // (long ago); after the switch point unless said.
    const name = "audit_findings";
    const dsn = await smallBoincDb(rig.maria, name, T, [
      /* 1 */ { received_time: AFTER, granted_credit: 0 }, // unpaid: no row in the bridge's table
      /* 2 */ { received_time: AFTER, granted_credit: 1e8 }, // written as the bridge's 1e8, above BOINC's 7.3e7
      /* 3 */ { received_time: AFTER, granted_credit: 80 }, // beta, written as 80, above the service's cap of 50 for beta
      /* 4 */ { received_time: AFTER, granted_credit: 12 }, // the bridge wrote 10
      /* 5 */ { received_time: AFTER, granted_credit: 10 }, // the bridge wrote 10: paid right
      /* 6 */ { received_time: AFTER, granted_credit: 0 }, // the service granted 0, and the bridge wrote it
      /* 7 */ {}, // reported before the switch point, BOINC's 1 credit: paid right
      /* 8 */ { received_time: AFTER, granted_credit: 0 }, // validated just now: the bridge has yet to write it
      /* 9 */ { received_time: AFTER, granted_credit: 4 }, // credit the bridge did not write, after the switch point
      /* 10 */ { received_time: AFTER, granted_credit: 0, validate_state: VALIDATE_STATE.invalid }, // invalid: nothing to pay
    ]);
    const root = await rig.maria.root(name);
    await root.query("UPDATE workunit SET appid = 2 WHERE id = 3");
    await root.end();
    await bridgeTables(name, "audit-findings", [
      [2, 1e8],
      [3, 80],
      [4, 10],
      [5, 10],
      [6, 0],
    ]);
    await validatedJustNow(name, 8);
    const { manage, ingest: token } = await createProjectTokens(rig.server.base, ADMIN, "audit-findings");
    // A setting: the operator's manage token (the bridge's ingest token may not).
    await send(rig.server.base, "PUT", "/v1/projects/audit-findings/apps/beta", manage, { max_granted_credit: 50 });

    const cli = startBridgeCli(["audit", "--url", rig.server.base, "--project", "audit-findings"], {
      COBBLESTONE_TOKEN: token,
      BOINC_DB_URL: dsn,
    });
    expect(await cli.exited, cli.stderr()).toBe(3);
    const lines = cli.stdout().trim().split("\n");
    expect(lines.slice(0, -1)).toEqual([
      "unpaid result 1 app alpha workunit 1: granted_credit 0, reported 2023-11-14T22:13:30.000Z (after the switch point), validated by 2023-11-14T22:13:20.000Z; the bridge wrote no credit for it",
      "out_of_bounds result 2 app alpha workunit 2: granted_credit 100000000 is more than the most BOINC grants for this app (73000000)",
      "out_of_bounds result 3 app beta workunit 3: granted_credit 80 is more than the most BOINC grants for this app (50)",
      "mismatch result 4 app alpha workunit 4: granted_credit 12, but the bridge wrote 10 (the service's grant)",
      "paid_by_other result 9 app alpha workunit 9: granted_credit 4, reported 2023-11-14T22:13:30.000Z (after the switch point), but the bridge wrote no credit for it: a validator still grants, or someone else wrote it",
    ]);
    expect(lines.at(-1)).toBe(
      "audit of 'audit-findings': results reported from 2023-11-14T22:13:20.000Z (switch point 2023-11-14T22:13:20.000Z), result ids 1 to 10: " +
        "5 findings (1 unpaid, 2 out_of_bounds, 1 mismatch, 1 paid_by_other); 1 validated in the last 5 minutes and not paid yet (not findings: the bridge writes them next)",
    );
    expect(cli.stderr()).toBe("");

    // The same findings when the ids are read three to a statement (the batches' edges).
    const found: Finding[] = [];
    const conn = await rig.maria.root(name);
    const report = await audit(conn, {
      switchTime: T,
      since: T,
      until: Number.MAX_SAFE_INTEGER,
      ceiling: (app) => (app === "beta" ? 50 : 7.3e7),
      lowestCeiling: 50,
      found: (f) => found.push(f),
      batch: 3,
    });
    await conn.end();
    expect(found.map((f) => `${f.kind} ${f.result_id}`)).toEqual([
      "unpaid 1",
      "out_of_bounds 2",
      "out_of_bounds 3",
      "mismatch 4",
      "paid_by_other 9",
    ]);
    expect(report).toEqual({
      counts: { unpaid: 1, out_of_bounds: 2, mismatch: 1, paid_by_other: 1 },
      pending: 1,
      ids: { from: 1, to: 10 },
    });

    // A window before the switch point holds result 7 only, paid right by BOINC: exit 0.
    const clean = startBridgeCli(
      ["audit", "--url", rig.server.base, "--project", "audit-findings", "--since", String(T - 200), "--until", String(T)],
      { COBBLESTONE_TOKEN: token, BOINC_DB_URL: dsn },
    );
    expect(await clean.exited, clean.stderr()).toBe(0);
    expect(clean.stdout()).toMatch(/: 0 findings \(0 unpaid, 0 out_of_bounds, 0 mismatch, 0 paid_by_other\)\n$/);
  });

  it("exits 2 where no --write-back run stored a switch point: the bridge was to pay nothing there", async () => {
    const dsn = await smallBoincDb(rig.maria, "audit_no_switch", T, [{}]);
    const token = await createProject(rig.server.base, ADMIN, "audit-no-switch");
    const cli = startBridgeCli(["audit", "--url", rig.server.base, "--project", "audit-no-switch"], {
      COBBLESTONE_TOKEN: token,
      BOINC_DB_URL: dsn,
    });
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(/^audit: the database mysql:\/\/bridge:\*\*\*@.* holds no switch point for 'audit-no-switch'/);
    expect(cli.stderr()).not.toContain("s3cret");
  });

  it("the metric counts a result nobody paid, not one paid, granted 0 by the service, reported before T, or validated in the last 5 minutes", async () => {
    const name = "unpaid_metric";
    const slug = "unpaid-metric";
    await smallBoincDb(rig.maria, name, T, [
      /* 1 */ { received_time: AFTER, granted_credit: 0 }, // unpaid: counted
      /* 2 */ { received_time: AFTER, granted_credit: 5 }, // paid by the bridge
      /* 3 */ { received_time: AFTER, granted_credit: 0 }, // granted 0 by the service, written by the bridge
      /* 4 */ { received_time: T - 100, granted_credit: 0 }, // reported before the switch point
      /* 5 */ { received_time: AFTER, granted_credit: 0 }, // validated just now (below)
      /* 6 */ { received_time: AFTER, granted_credit: 0, validate_state: VALIDATE_STATE.invalid }, // invalid
    ]);
    await bridgeTables(name, slug, [
      [2, 5],
      [3, 0],
    ]);
    await validatedJustNow(name, 5);
    const writer = await writerDsn(rig.maria, name);
    const token = await createProject(rig.server.base, ADMIN, slug);
    const status = new BridgeStatus(slug);
    // The cursor, and the write-back's, start after results 1-4 (validated at T to T+3): as if a
    // write-back run had passed result 1 by without writing it, the fault the count is there to catch.
    const stateFile = join(rig.work, `${slug}.state.json`);
    const past = { mod_time: T + 100, id: 0 };
    await writeFile(
      stateFile,
      JSON.stringify({
        version: 1,
        url: normalizeServiceUrl(rig.server.base),
        project: slug,
        cursor: past,
        last_event_time: null,
        last_rescale_mark: null,
        write_back_cursor: past,
      }),
    );
    const options = (extra: Parameters<typeof bridgeOptions>[1]) =>
      bridgeOptions(
        { db: writer, url: rig.server.base, project: slug, token, stateFile },
        { log: () => undefined, writeBack: true, ...extra },
      );
    const report = await runBridge(options({ status, countUnpaid: true }));
    expect(report.write_back).toMatchObject({ written: 0 });
    expect(status.snapshot().unpaid).toMatchObject({ count: 1 });
    const text = renderMetrics(status.snapshot());
    expect(text).toContain(`cobblestone_bridge_unpaid_results{project="${slug}"} 1\n`);
    expect(text).toMatch(new RegExp(`cobblestone_bridge_unpaid_counted_timestamp_seconds\\{project="${slug}"\\} \\d`));

    // Result 5 was left out only for being recent: validated long ago, it counts too.
    const conn = await rig.maria.root(name);
    expect(await countUnpaid(conn, T)).toBe(1);
    await conn.query("SET time_zone = '+00:00'; UPDATE result SET mod_time = '2023-11-14 22:13:24' WHERE id = 5");
    expect(await countUnpaid(conn, T)).toBe(2);
    await conn.end();

    // Without a monitor to read it (countUnpaid off), no count is made and no metric is shown.
    const quiet = new BridgeStatus(slug);
    await runBridge(options({ status: quiet }));
    expect(quiet.snapshot().unpaid).toBeNull();
    expect(renderMetrics(quiet.snapshot())).not.toContain("cobblestone_bridge_unpaid");
  });
});
