/**
 * The bridge's exit statuses, defined once (docs/bridge.md, "Exit status"). They say what
 * happened and what a supervisor should do: systemd restarts on every failure but 2
 * (`RestartPreventExitStatus=2` in docs/bridge.md's unit), which needs a human. Numbers from 64
 * up follow BSD's sysexits.h where one fits (75 EX_TEMPFAIL); 130 is the shell's 128 + SIGINT.
 */
export const EXIT = {
  /** Done: caught up (a backfill), or stopped by SIGTERM or Ctrl-C (a --follow run, whose normal end that is). */
  ok: 0,
  /** A bug: the message comes with its stack. Restarting may help once; report it. */
  bug: 1,
  /**
   * Needs a human: a refusal (a validator still grants, an answer that does not match its
   * request, missing privileges, a cursor ahead of the clock), a bad option or config, a wrong
   * token, project or URL. The same command would fail the same way: not restarted.
   */
  needsHuman: 2,
  /** `cobblestone-bridge audit` found results unpaid or paid wrongly (audit-cli.ts). */
  findings: 3,
  /** The service or the database unreachable or failing (after the retries), a 5xx from the service: restarting is right. */
  unavailable: 75,
  /** Another bridge run holds the project's database lock or this state file's lock (run-guard.ts, lock.ts). */
  locked: 76,
  /** A backfill stopped by Ctrl-C or SIGTERM (it saved where it was), or a second signal that left at once. */
  interrupted: 130,
} as const;

export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

/** What stopped a run, as a BridgeError carries it (errors.ts); each has its exit status. */
export type FailureKind = "refusal" | "unavailable" | "locked" | "bug";

export const EXIT_OF: Record<FailureKind, ExitStatus> = {
  refusal: EXIT.needsHuman,
  unavailable: EXIT.unavailable,
  locked: EXIT.locked,
  bug: EXIT.bug,
};

/** Whether a process that exited so failed: everything but a clean end and an interruption. */
export function isFailure(status: number): boolean {
  return status !== EXIT.ok && status !== EXIT.interrupted;
}
