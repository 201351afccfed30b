/**
 * The systemd units the package ships (bridge/pack/package/systemd/, issue 49): their command lines
 * are ones the bridge takes, with the secrets only in the secrets file that LoadCredential= hands
 * it; `systemd-analyze verify` finds nothing to say about them, and `systemd-analyze security`
 * rates each service's exposure at most 3.0 ("OK"). systemd need not run: both read the unit
 * files (`security --offline=yes`). Where systemd-analyze is missing those two are skipped.
 */
import { execFile, execFileSync } from "node:child_process";
import { chmod, copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { parseOptions } from "../../bridge/command-line/cli-options";
import { parseSecretsFile } from "../../bridge/command-line/secrets";
import { environmentFile, execStart, unitSettings } from "./systemd-exec";

const DIR = new URL("../../bridge/pack/package/systemd/", import.meta.url).pathname;
const FOLLOW = "cobblestone-bridge@.service";
const ONCE = "cobblestone-bridge-once@.service";
const TIMER = "cobblestone-bridge-once@.timer";
const SERVICES = [FOLLOW, ONCE];
/** Where the units run the bridge: `npm install -g`'s bin on Debian (docs/bridge.md, step 2). */
const EXECUTABLE = "/usr/local/bin/cobblestone-bridge";
/** `systemd-analyze security`'s exposure, times 10 (its --threshold's unit): 3.0, "OK". */
const THRESHOLD = 30;

function analyzer(): boolean {
  try {
    execFileSync("systemd-analyze", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const available = suiteNeeds("the shipped systemd units, by systemd-analyze", import.meta.url, "systemd", analyzer());

const unit = async (name: string) => unitSettings(await readFile(join(DIR, name), "utf8"));

function analyze(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) =>
    execFile("systemd-analyze", args, { cwd }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}

describe("the shipped systemd units", () => {
  let work: string;
  beforeAll(async () => (work = await mkdtemp(join(tmpdir(), "cobblestone-units-"))));
  afterAll(() => rm(work, { recursive: true, force: true }));

  it("ships the --follow service, the one-shot service and its timer, and the example settings and secrets", async () => {
    expect((await readdir(DIR)).sort()).toEqual([ONCE, TIMER, FOLLOW, "example.conf", "example.secrets"].sort());
    const env = parseSecretsFile(await readFile(join(DIR, "example.secrets"), "utf8"), "example.secrets");
    expect(Object.keys(env).sort()).toEqual(["BOINC_DB_URL", "COBBLESTONE_TOKEN"]);
    expect((await unit(TIMER)).get("OnCalendar")).toEqual(["minutely"]);
  });

  it("restarts --follow on failure but not when it needs a human (exit 2); a one-shot run that finds the lock taken is no failure", async () => {
    const follow = await unit(FOLLOW);
    expect(follow.get("Restart")).toEqual(["on-failure"]);
    expect(follow.get("RestartPreventExitStatus")).toEqual(["2"]);
    expect(follow.get("RestartSec")).toEqual(["30s"]);
    const once = await unit(ONCE);
    expect(once.get("Type")).toEqual(["oneshot"]);
    expect(once.get("SuccessExitStatus")).toEqual(["76"]);
  });

  it("keeps every secret out of the unit, the command line and the environment: the secrets file comes as a credential", async () => {
    for (const name of SERVICES) {
      const s = await unit(name);
      expect(s.get("LoadCredential"), name).toEqual(["secrets:/etc/cobblestone-bridge/%i.secrets"]);
      expect(s.get("ExecStart")![0], name).toContain(" --secrets-file %d/secrets ");
      expect(s.get("EnvironmentFile"), name).toEqual(["/etc/cobblestone-bridge/%i.conf"]);
      expect(s.has("Environment"), name).toBe(false);
      expect(s.get("ExecStart")![0], name).not.toMatch(/--token|--db /);
      // V8 compiles JavaScript to machine code at run time: MemoryDenyWriteExecute=yes would stop node.
      expect(s.get("MemoryDenyWriteExecute") ?? [], name).toEqual([]);
      expect(s.get("DynamicUser"), name).toEqual(["yes"]);
      expect(s.get("StateDirectory"), name).toEqual(["cobblestone-bridge"]);
    }
    const conf = await readFile(join(DIR, "example.conf"), "utf8");
    expect(conf).not.toMatch(/COBBLESTONE_TOKEN|BOINC_DB_URL=/);
  });

  it("runs command lines the bridge takes: the project, the service, the state file and the secrets where the units say", async () => {
    // As systemd would run cobblestone-bridge@myproject.service: its specifiers and example.conf's variables put in.
    const credentials = join(work, "credentials");
    await mkdir(credentials, { recursive: true });
    await copyFile(join(DIR, "example.secrets"), join(credentials, "secrets"));
    await chmod(join(credentials, "secrets"), 0o400);
    const conf = environmentFile(await readFile(join(DIR, "example.conf"), "utf8"));
    expect(conf.COBBLESTONE_URL).toBe("https://cobblestone.example.org");
    const vars: Record<string, string> = { ...conf, BRIDGE_OPTIONS: "--write-back --log-format json", FOLLOW_OPTIONS: "--poll-every 5" };
    for (const name of SERVICES) {
      const line = (await unit(name)).get("ExecStart")![0]!;
      const { command, args } = execStart(line, { instance: "myproject", credentials, stateRoot: "/var/lib" }, vars);
      expect(command, name).toBe(EXECUTABLE);
      const o = await parseOptions(args, {});
      expect(o, name).toMatchObject({
        project: "myproject",
        url: "https://cobblestone.example.org",
        token: "cbp_…",
        db: "mysql://cobblestone:PASSWORD@db-replica:3306/boinc_db",
        stateFile: "/var/lib/cobblestone-bridge/myproject.json",
        writeBack: true,
        logFormat: "json",
        rescaleEvery: 0,
      });
      expect(o.follow, name).toEqual(name === FOLLOW ? { pollSeconds: 5 } : undefined);
    }
  });

  describe.skipIf(!available)("by systemd-analyze", () => {
    /** The units as installed, with ExecStart's executable at `stub` (verify checks that it is there). */
    let dir: string;
    beforeAll(async () => {
      dir = join(work, "system");
      await mkdir(dir, { recursive: true });
      const stub = join(work, "cobblestone-bridge");
      await writeFile(stub, "#!/bin/sh\n");
      await chmod(stub, 0o755);
      for (const name of [FOLLOW, ONCE, TIMER]) {
        const text = await readFile(join(DIR, name), "utf8");
        await writeFile(join(dir, name), text.replaceAll(`ExecStart=${EXECUTABLE} `, `ExecStart=${stub} `));
      }
    });

    it("`systemd-analyze verify` finds nothing to say about any of them", async () => {
      for (const name of [
        "cobblestone-bridge@myproject.service",
        "cobblestone-bridge-once@myproject.service",
        "cobblestone-bridge-once@myproject.timer",
      ]) {
        const { code, out } = await analyze(["verify", `./${name}`], dir);
        expect({ name, code, out }).toEqual({ name, code: 0, out: "" });
      }
    });

    it(`\`systemd-analyze security --offline=yes\` rates each service's exposure at most ${THRESHOLD / 10} ("OK")`, async () => {
      for (const name of ["cobblestone-bridge@myproject.service", "cobblestone-bridge-once@myproject.service"]) {
        const { code, out } = await analyze(["security", "--offline=yes", `--threshold=${THRESHOLD}`, `./${name}`], dir);
        const level = /Overall exposure level for \S+: ([\d.]+) (\S+)/.exec(out);
        console.log(`systemd-analyze security --offline=yes ${name}: ${level?.[1]} ${level?.[2]}`);
        expect(code, out).toBe(0);
        expect(Number(level?.[1]), out).toBeLessThanOrEqual(THRESHOLD / 10);
      }
    });
  });
});
