/**
 * The bridge as systemd runs it in the soak (docs/bridge.md's unit: `node --import tsx
 * bridge/cli.ts … --write-back --follow`, Restart=on-failure, RestartPreventExitStatus=2): a
 * child process, started again `restartMs` after it exits with a failure (a non-zero status, or a
 * signal the soak did not send to stop it), each restart counted with its cause. The exit status
 * says which (bridge/shared/exit-codes.ts): the service or the database unavailable (75, a 500 of the
 * service included) and another run holding the lock (76) are outages systemd restarts from; a
 * bug (exit 1) is a soak failure, and so is exit 2 (a refusal, such as a validator still
 * granting: needs a human, and systemd would not restart it) and a clean exit nobody asked for
 * (systemd would leave the bridge down). After those the soak starts it again anyway, to go on.
 * Every process's VmRSS is sampled from /proc every few seconds.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { EXIT } from "../../bridge/shared/exit-codes";

const RSS_EVERY_MS = 2000;
const TAIL_LINES = 30;

export interface RssSample {
  at: number;
  mb: number;
}

export interface BridgeProcess {
  n: number;
  pid: number;
  startedAt: number;
  endedAt: number | null;
  /** `exit 2`, `SIGKILL`, … */
  exit: string | null;
  /** Why it ended, in a line (the bridge's last message, or the soak's own action). */
  cause: string | null;
  /** Set when the way it ended fails the soak. */
  failure: string | null;
  rss: RssSample[];
  log: string;
  /** The last stdout line (the bridge's summary). */
  summary: string | null;
}

export class BridgeSupervisor {
  readonly processes: BridgeProcess[] = [];
  private child: ChildProcess | null = null;
  private stopping = false;
  /** The signal the soak itself sent (a fault), so that the exit is told apart from a crash. */
  private sent: NodeJS.Signals | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private readonly sampler: NodeJS.Timeout;

  constructor(
    private readonly command: { file: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv },
    private readonly logDir: string,
    private readonly restartMs: number,
    private readonly say: (line: string) => void,
  ) {
    this.sampler = setInterval(() => void this.sample(), RSS_EVERY_MS);
  }

  get current(): BridgeProcess | null {
    const last = this.processes.at(-1);
    return last && last.endedAt === null ? last : null;
  }

  get restarts(): number {
    return Math.max(0, this.processes.length - 1);
  }

  start(): void {
    this.restartTimer = null;
    if (this.stopping) return;
    const n = this.processes.length + 1;
    const log = join(this.logDir, `bridge-${n}.log`);
    const out = createWriteStream(log);
    const child = spawn(this.command.file, this.command.args, {
      cwd: this.command.cwd,
      env: this.command.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const p: BridgeProcess = {
      n,
      pid: child.pid ?? 0,
      startedAt: Date.now(),
      endedAt: null,
      exit: null,
      cause: null,
      failure: null,
      rss: [],
      log,
      summary: null,
    };
    this.processes.push(p);
    this.child = child;
    this.sent = null;
    const tail: string[] = [];
    const keep = (prefix: string) => (d: Buffer) => {
      out.write(d);
      for (const line of d.toString().split("\n")) {
        if (!line) continue;
        tail.push(prefix + line);
        if (tail.length > TAIL_LINES) tail.shift();
        if (prefix === "") p.summary = line;
      }
    };
    child.stdout!.on("data", keep(""));
    child.stderr!.on("data", keep("! "));
    child.once("exit", (code, signal) => {
      out.end();
      p.endedAt = Date.now();
      p.exit = signal ?? `exit ${code}`;
      this.child = null;
      this.classify(
        p,
        code,
        signal,
        tail.filter((l) => l.startsWith("! ")).map((l) => l.slice(2)),
      );
      const why = `bridge process ${n} (pid ${p.pid}) ended: ${p.exit}, ${p.cause}`;
      if (this.stopping) {
        this.say(why);
        return;
      }
      // Restart=on-failure leaves a clean exit down, RestartPreventExitStatus=2 a refusal.
      const systemd = code === EXIT.ok || code === EXIT.needsHuman ? " (systemd would leave it down: the soak goes on)" : "";
      this.say(`${why}${p.failure ? ` [FAILURE: ${p.failure}]` : ""}; restarting in ${this.restartMs / 1000} s${systemd}`);
      this.restartTimer = setTimeout(() => this.start(), this.restartMs);
    });
  }

  private classify(p: BridgeProcess, code: number | null, signal: NodeJS.Signals | null, stderr: string[]): void {
    // The bridge's own message: its last `bridge: …` line and what follows it.
    const from = stderr.findLastIndex((l) => l.startsWith("bridge: "));
    const message = (from >= 0 ? stderr.slice(from).join(" | ") : (stderr.at(-1) ?? "no message")).slice(0, 400);
    if (signal) {
      p.cause = signal === this.sent ? `${signal} sent by the soak` : `killed by ${signal}`;
      if (signal !== this.sent) p.failure = `killed by ${signal}, which the soak did not send`;
    } else if (code === EXIT.ok) {
      p.cause = this.stopping ? "stopped by SIGTERM" : message;
      if (!this.stopping) p.failure = "exited 0 without being asked to stop (systemd's Restart=on-failure would leave it down)";
    } else if (code === EXIT.unavailable || code === EXIT.locked) {
      // An outage, told by the status: systemd restarts it, as the soak does.
      p.cause = message;
    } else {
      p.cause = message;
      p.failure =
        code === EXIT.needsHuman
          ? "exit 2: needs a human (a refusal), and systemd would not restart it (RestartPreventExitStatus=2)"
          : code === EXIT.bug
            ? "exit 1: a bug"
            : `exit ${code}`;
    }
  }

  private async sample(): Promise<void> {
    const p = this.current;
    if (!p) return;
    try {
      const status = await readFile(`/proc/${p.pid}/status`, "utf8");
      const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
      if (Number.isFinite(kb) && p.endedAt === null) p.rss.push({ at: Date.now(), mb: kb / 1024 });
    } catch {
      // It ended between the check and the read.
    }
  }

  /** A fault: the running bridge gets `signal` (SIGKILL), and is restarted like any failed process. */
  kill(signal: NodeJS.Signals): boolean {
    if (!this.child) return false;
    this.sent = signal;
    this.child.kill(signal);
    return true;
  }

  /** The end: SIGTERM (systemctl stop), no restart; resolves with the last process once it has exited. */
  async stop(timeoutMs: number): Promise<BridgeProcess | null> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (child) {
      const exited = new Promise((r) => child.once("exit", r));
      this.sent = "SIGTERM";
      child.kill("SIGTERM");
      const killed = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      await exited;
      clearTimeout(killed);
    }
    clearInterval(this.sampler);
    return this.processes.at(-1) ?? null;
  }
}
