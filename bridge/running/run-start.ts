/**
 * Where a run starts (docs/bridge.md, "Where a run starts"): the saved cursor, or --since on a
 * fresh state file, moved back by --rewind, refused when it is ahead of the database's clock;
 * and the start told, with the write-back's account and what a run without --write-back leaves
 * unwritten.
 */
import { redactDsn } from "../database/boinc-db";
import { refuseCursorAhead, rewind, whenText } from "./cursor-checks";
import { FOLLOW_HOLD_SECONDS, SETTLE_SECONDS, type BridgeOptions } from "./run-options";
import { type BridgeState, freshState, loadState } from "./state";
import type { Teller } from "../telling/event-log";
import { accountWarning, writeBackAccount } from "../write-back/write-back-privileges";

export interface RunStart {
  state: BridgeState;
  /** The database's clock when the run started. */
  seenAt: number;
  /** The first round reads the seconds before this one: over by the database's clock, less a margin. */
  until: number;
}

export async function startRun(
  options: BridgeOptions,
  url: string,
  serverTime: () => Promise<number>,
  writeBack: boolean,
  teller: Teller,
): Promise<RunStart> {
  const stored = await loadState(options.stateFile, url, options.project);
  const state: BridgeState = stored ?? freshState(url, options.project, options.since ?? 0);
  if (stored && options.since !== null && options.since > state.cursor.mod_time) state.cursor = { mod_time: options.since, id: 0 };
  const follow = options.follow ?? null;
  // Whole seconds that are over by the database's own clock (it stamps mod_time), less a margin.
  const seenAt = await serverTime();
  const until = seenAt - (follow ? FOLLOW_HOLD_SECONDS : SETTLE_SECONDS) + 1;
  if (options.rewind !== undefined && options.rewind !== null) {
    teller.tell("warn", "rewind", rewind(state, options.rewind, seenAt), { cursor_mod_time: state.cursor.mod_time });
  }
  refuseCursorAhead(state, seenAt, options.stateFile);
  if (!writeBack && !options.dryRun && state.write_back_cursor) {
    teller.tell(
      "warn",
      "not_written_back",
      `this state file's project writes its credit back (its write-back wrote up to ${whenText(state.write_back_cursor.mod_time)}), but this run has no --write-back: it posts without writing, and the next --write-back run posts these results again and writes them`,
    );
  }
  await tellStart(options, url, state, writeBack, teller);
  return { state, seenAt, until };
}

/** The start event; the write-back's account, the project's own or one that may do more than write credit, is told (docs/bridge.md, "Switch-over checklist"). */
async function tellStart(options: BridgeOptions, url: string, state: BridgeState, writeBack: boolean, teller: Teller): Promise<void> {
  const follow = options.follow ?? null;
  const account = writeBack ? await writeBackAccount(options.db) : null;
  const projectUser = writeBack ? (options.projectAccount ?? null) : null;
  teller.note(
    "start",
    `start: project '${options.project}' at ${redactDsn(url)}, database ${redactDsn(options.db)}, cursor ${state.cursor.mod_time}:${state.cursor.id}`,
    {
      project: options.project,
      url: redactDsn(url),
      database: redactDsn(options.db),
      follow: follow !== null,
      poll_every_s: follow?.pollSeconds ?? null,
      write_back: writeBack,
      dry_run: options.dryRun,
      cursor_mod_time: state.cursor.mod_time,
      cursor_id: state.cursor.id,
      write_back_account: account?.account ?? null,
      write_back_project_account: account ? projectUser !== null : null,
      write_back_beyond: account && account.beyond.length > 0 ? account.beyond.join(", ") : null,
    },
  );
  const warning = account ? accountWarning(account.account, projectUser, account.beyond) : null;
  if (account && warning) {
    teller.tell("warn", "write_back_account", warning, {
      account: account.account,
      project_account: projectUser !== null,
      beyond: account.beyond.length > 0 ? account.beyond.join(", ") : null,
    });
  }
}
