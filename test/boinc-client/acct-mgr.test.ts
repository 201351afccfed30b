/**
 * End to end with the real BOINC client (Debian's boinc-client): it joins a small account
 * manager started here (`boinccmd --join_acct_mgr`); the account manager forwards the client's
 * request, byte for byte, to the service under `wrangler dev` and answers with the service's
 * <account> fragment. The client runs with its own data directory, GUI RPC port and password,
 * never the system service.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type WranglerDev, startWranglerDev } from "../browser/wrangler-dev";

const BOINC = "/usr/bin/boinc";
const BOINCCMD = "/usr/bin/boinccmd";
const ADMIN_TOKEN = "boinc-client-test-admin-token";
/** The account manager's ids of the client's host and its owner. */
const HOST_ID = 1;
const USER_ID = 7;
const GUI_PASSWORD = "gui-rpc-test-password";

const hasClient = suiteNeeds(
  "the BOINC client's account-manager RPC, booked by the service",
  import.meta.url,
  "boinc-client",
  existsSync(BOINC) && existsSync(BOINCCMD),
);

/**
 * The client takes an account manager only with a signing key (it checks URL signatures with
 * it); this reply attaches nothing new, so the key is never used: a well-formed placeholder.
 */
const SIGNING_KEY = `<signing_key>\n1024\n${"0".repeat(256)}\n${"0".repeat(250)}010001\n.\n</signing_key>`;

interface Forwarded {
  readonly status: number;
  readonly body: string;
}

/** The stub account manager: forwards each rpc.php request to the service, answers with its fragment. */
function startStub(forward: (xml: string) => Promise<Forwarded>, seen: Forwarded[]): Promise<Server> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", async () => {
      res.setHeader("Content-Type", "text/xml");
      if (!req.url?.endsWith("rpc.php")) {
        // The client's project (attached below) fetches its master page here: no scheduler.
        res.end("<html><head><title>stub project</title></head><body></body></html>");
        return;
      }
      const answer = await forward(body);
      seen.push(answer);
      const fragment = answer.status === 200 ? answer.body : "";
      res.end(
        `<?xml version="1.0" encoding="UTF-8" ?>\n<acct_mgr_reply>\n<name>Stub AM</name>\n<dynamic>1</dynamic>\n` +
          `<repeat_sec>86400</repeat_sec>\n${SIGNING_KEY}\n${fragment}</acct_mgr_reply>\n`,
      );
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/**
 * Runs an account-manager operation until the client took it: while the client's one HTTP
 * slot for GUI operations is busy (it fetches the project list at start), it answers "retry".
 */
async function untilDone(operation: () => Promise<string>): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const output = await operation();
    if (!/poll status: retry/.test(output)) return output;
    if (Date.now() > deadline) throw new Error(`the client kept answering retry:\n${output}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

describe.skipIf(!hasClient)("the BOINC client's account-manager RPC, booked by the service", () => {
  let dev: WranglerDev;
  let stub: Server;
  let client: ChildProcess;
  let dataDir: string;
  let boinccmd: (...args: string[]) => Promise<string>;
  let amSlug: string;
  let amToken: string;
  let projectUrl: string;
  const seen: Forwarded[] = [];

  beforeAll(async () => {
    dev = await startWranglerDev(ADMIN_TOKEN);
    amSlug = `client-am-${Date.now()}`;
    const created = await fetch(`${dev.base}/v1/account-managers`, {
      method: "POST",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ slug: amSlug, name: "Stub AM" }),
    });
    expect(created.status).toBe(201);
    amToken = ((await created.json()) as { token: string }).token;
    stub = await startStub(async (xml) => {
      const res = await fetch(`${dev.base}/v1/am/${amSlug}/hosts/${HOST_ID}/rpcs?user_id=${USER_ID}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${amToken}`, "Content-Type": "application/xml", Accept: "application/xml" },
        body: xml,
      });
      return { status: res.status, body: await res.text() };
    }, seen);
    const stubBase = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/`;
    projectUrl = `${stubBase}proj/`;

    dataDir = await mkdtemp(join(tmpdir(), "cobblestone-boinc-client-"));
    await writeFile(join(dataDir, "gui_rpc_auth.cfg"), GUI_PASSWORD);
    const guiPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const port = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(port));
      });
    });
    client = spawn(BOINC, ["--dir", dataDir, "--gui_rpc_port", String(guiPort), "--allow_multiple_clients", "--no_gpus"], {
      cwd: dataDir,
      stdio: "ignore",
    });
    boinccmd = async (...args: string[]) =>
      (await promisify(execFile)(BOINCCMD, ["--host", `127.0.0.1:${guiPort}`, "--passwd", GUI_PASSWORD, ...args], { timeout: 60_000 }))
        .stdout;
    // Ready once the GUI RPC port answers: within seconds on a quiet machine, but beside the
    // browser suite's chromium under `npm test` the client once took over 30 s to open it.
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        await boinccmd("--client_version");
        break;
      } catch (e) {
        if (client.exitCode !== null)
          throw new Error(`the BOINC client exited (status ${client.exitCode}) before its GUI RPC port answered`, { cause: e });
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    await boinccmd("--project_attach", projectUrl, "0123456789abcdef0123456789abcdef");
  });

  afterAll(async () => {
    if (client && client.exitCode === null) {
      await boinccmd("--quit").catch(() => undefined);
      const exited = new Promise((r) => client.once("exit", r));
      const killed = setTimeout(() => client.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(killed);
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await new Promise((r) => (stub ? stub.close(r) : r(undefined)));
    await dev?.stop();
  });

  it("joins: the first request has no totals (422, nothing booked); after <dynamic> the totals are booked as the baseline", async () => {
    await untilDone(() => boinccmd("--join_acct_mgr", `http://127.0.0.1:${(stub.address() as AddressInfo).port}/`, "someone", "password"));
    expect(
      seen.map((s) => s.status),
      JSON.stringify(seen),
    ).toHaveLength(1);
    expect(seen[0]!.status).toBe(422);
    expect(seen[0]!.body).toContain("no_accounting_fields");

    await untilDone(() => boinccmd("--acct_mgr", "sync"));
    expect(seen).toHaveLength(2);
    expect(seen[1]!.status).toBe(200);
    // The fragment the client got: its project, with the lifetime totals it reported (none yet).
    expect(seen[1]!.body).toContain(`<url>${projectUrl}</url>`);
    expect(seen[1]!.body).toContain("<cpu_ec>0</cpu_ec>");

    const rpcs = await fetch(`${dev.base}/v1/am/${amSlug}/hosts/${HOST_ID}/rpcs`, { headers: { Authorization: `Bearer ${amToken}` } });
    const booked = ((await rpcs.json()) as { rpcs: { user_id: number; projects: { url: string; baseline: boolean; booked: unknown }[] }[] })
      .rpcs;
    expect(booked).toHaveLength(1);
    expect(booked[0]!.user_id).toBe(USER_ID);
    expect(booked[0]!.projects).toEqual([
      expect.objectContaining({
        url: projectUrl,
        baseline: true,
        booked: { cpu_ec: 0, cpu_time: 0, gpu_ec: 0, gpu_time: 0, njobs_success: 0, njobs_error: 0 },
      }),
    ]);
  });

  it("the client took the reply: it shows its project and the account manager it joined", async () => {
    const status = await boinccmd("--get_project_status");
    expect(status).toContain(`master URL: ${projectUrl}`);
    expect(status).toContain("jobs succeeded: 0");
    const info = await boinccmd("--acct_mgr", "info");
    expect(info).toContain("Stub AM");
    // The account manager's login file marks it dynamic: the client sends its totals from now on.
    expect(await readFile(join(dataDir, "acct_mgr_login.xml"), "utf8")).toContain("<dynamic>1</dynamic>");
  });
});
