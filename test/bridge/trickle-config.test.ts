/**
 * What the bridge takes from a trickle-up message and from config.xml's trickle_credit daemon
 * (bridge/database/trickle-messages.ts, bridge/database/trickle-config.ts): pure, no database.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BridgeError } from "../../bridge/shared/errors";
import { resolveDatabase } from "../../bridge/database/db-source";
import { trickleApp, trickleDaemonOfConfig, trickleSettings } from "../../bridge/database/trickle-config";
import { runtimeOf } from "../../bridge/database/trickle-messages";

describe("a message's runtime, as BOINC's handler parses it", () => {
  it("the first <runtime> that is a number; an empty one is 0; none is null", () => {
    expect(runtimeOf("<result_name>r</result_name>\n<time>1</time>\n<runtime>3600.000000</runtime>\n")).toBe(3600);
    expect(runtimeOf("<runtime>abc</runtime><runtime> 12.5e2 </runtime>")).toBe(1250);
    expect(runtimeOf("<runtime></runtime><runtime>5</runtime>")).toBe(0);
    expect(runtimeOf("<runtime>-3</runtime>")).toBe(-3);
    expect(runtimeOf("<text>hello</text>")).toBeNull();
    expect(runtimeOf("<runtime>0x10</runtime>")).toBeNull();
    expect(runtimeOf(null)).toBeNull();
  });
});

describe("config.xml's trickle_credit daemon", () => {
  const config = (cmds: string[]) =>
    `<boinc><config><db_name>p</db_name></config><daemons>${cmds.map((c) => `<daemon><cmd>${c}</cmd></daemon>`).join("")}</daemons></boinc>`;

  it("its --variety (one dash or two) and --max_runtime (two dashes only, as the handler takes it)", () => {
    expect(trickleDaemonOfConfig(config(["feeder -d 3", "trickle_credit -d 3 -variety climate --max_runtime 3600"]))).toEqual({
      variety: "climate",
      maxRuntime: "3600",
    });
    expect(trickleDaemonOfConfig(config(["../bin/trickle_credit --variety v -max_runtime 10"]))).toEqual({
      variety: "v",
      maxRuntime: undefined,
    });
    expect(trickleDaemonOfConfig(config(["feeder", "validator --app x"]))).toBeNull();
    expect(trickleDaemonOfConfig(config(["trickle_handler --variety v"]))).toBeNull();
  });

  it("the app: --trickle-app, else the app named like the variety, else the only app; otherwise refused", () => {
    const apps = [{ name: "climate" }, { name: "other" }];
    expect(trickleApp({ variety: "climate", maxRuntime: 1, app: null }, apps)).toBe("climate");
    expect(trickleApp({ variety: "v", maxRuntime: 1, app: "other" }, apps)).toBe("other");
    expect(trickleApp({ variety: "v", maxRuntime: 1, app: null }, [{ name: "only" }])).toBe("only");
    expect(() => trickleApp({ variety: "v", maxRuntime: 1, app: null }, apps)).toThrow(BridgeError);
    expect(() => trickleApp({ variety: "v", maxRuntime: 1, app: "nope" }, apps)).toThrow(/not an app of the BOINC database/);
  });
});

describe("the trickle settings of a run", () => {
  it("the options override config.xml's daemon; a variety without a runtime cut, a bad cut, or a cut without a variety is refused", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cobblestone-trickle-config-"));
    const file = join(dir, "config.xml");
    await writeFile(
      file,
      "<boinc><config><db_name>boinc</db_name></config><daemons><daemon><cmd>trickle_credit --variety climate --max_runtime 3600</cmd></daemon></daemons></boinc>",
    );
    // config.xml is read once, by resolveDatabase, which gives the daemon to trickleSettings.
    const { trickleDaemon } = await resolveDatabase(undefined, file, {}, false);
    expect(trickleDaemon).toEqual({ variety: "climate", maxRuntime: "3600" });
    expect(trickleSettings({}, trickleDaemon)).toEqual({ variety: "climate", maxRuntime: 3600, app: null });
    expect(trickleSettings({ maxRuntime: "600", app: "a" }, trickleDaemon)).toEqual({ variety: "climate", maxRuntime: 600, app: "a" });
    expect(trickleSettings({}, null)).toBeNull();
    expect(trickleSettings({ variety: "v", maxRuntime: "10" }, null)).toEqual({ variety: "v", maxRuntime: 10, app: null });
    expect(() => trickleSettings({ variety: "v" }, null)).toThrow(/--max_runtime/);
    expect(() => trickleSettings({ variety: "v", maxRuntime: "0" }, null)).toThrow(/above 0, not '0'/);
    expect(() => trickleSettings({ maxRuntime: "10" }, null)).toThrow(/need a variety/);
    await rm(dir, { recursive: true, force: true });
  });
});
