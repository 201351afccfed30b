/**
 * The one writer of validator passes: the writes of passes decided one after another (POST
 * /pass-batches; a pass posted alone, POST /passes, is a batch of one), for ONE atomic D1
 * batch whose size does not grow with the number of passes (docs/storage.md#pass-batches).
 * Each table is written by one file, in the order of WRITE_PHASES (docs/development.md,
 * "Who writes what"): the hosts, users, teams and the project row walk every pass's grant runs
 * in order, each at its pass's `now`, after one statement for the day buckets the walks finish
 * (holder-walks.ts). What only inserts rows or sets values the last pass decides is written
 * once for the batch: results and workunits (each row with its own pass's time), new hosts,
 * users and teams (the first naming pass's `now`; the last owner and team: no statement of a
 * pass reads them), the host_app_versions' walks over all the passes' changes in pass order
 * (host-app-version-writes.ts; a change takes no `now`), one statement per app version (its
 * PFC and RAC walks and final fair state: version-writes.ts), one per-app credit queue row
 * (each run with its pass's `now`), and one KV mark row.
 */
import type { SQL } from "drizzle-orm";
import type { FairHostChange } from "../credit/fair-pass";
import type { PassEffects } from "../credit/pass";
import { attributionPhases } from "./attribution-writes";
import { attributionCounts } from "./holder-counts";
import { dirtySubjects, markSubjects } from "./kv-marks";
import { type ExistingHolders, type FreshHolders, freshHolders, grantGroups } from "./grant-groups";
import type { HistoryTarget } from "./history-transitions";
import { grantWalkPhases } from "./holder-walks";
import { hostAppVersionWrites } from "./host-app-version-writes";
import { passOutcomePhases } from "./outcome-writes";
import { versionWrites } from "./version-writes";
import { assembleWrites } from "./write-phases";

/** One pass's effects and the `now` it was decided at. */
export interface TimedEffects {
  readonly now: number;
  readonly effects: PassEffects;
}

/** The batch's writes, as one batch in the order of WRITE_PHASES (write-phases.ts). */
export function passBatchWrites(
  projectId: number,
  passes: readonly TimedEffects[],
  existing: ExistingHolders,
  history?: HistoryTarget,
): SQL[] {
  const all = <T>(pick: (e: PassEffects) => readonly T[]) => passes.flatMap((p) => pick(p.effects));
  // Holders a pass both creates and credits are inserted by its grant statement, with the
  // owner or team that pass gives them; a holder exists for every later pass once a pass has named it.
  const known = { hosts: new Set(existing.hosts), users: new Set(existing.users), teams: new Set(existing.teams) };
  // The holders the batch's holders phase creates (named, not stored, and no grant inserts them),
  // each with the `now` of the first pass naming it.
  const created = { hosts: new Map<number, number>(), users: new Map<number, number>(), teams: new Map<number, number>() };
  const groups = passes.map(({ effects }) => grantGroups(effects.grants));
  const fresh: FreshHolders[] = passes.map(({ now, effects }, k) => {
    const f = freshHolders(effects, groups[k]!, known);
    const name = (kind: keyof typeof known, id: number) => {
      if (!known[kind].has(id) && !f[kind].has(id)) created[kind].set(id, now);
      known[kind].add(id);
    };
    for (const a of effects.attributions) {
      name("hosts", a.hostId);
      if (a.userId !== 0) name("users", a.userId);
      if (a.userId !== 0 && a.teamId !== 0) name("teams", a.teamId);
    }
    return f;
  });
  // A host_app_version's fair state is absolute: the last pass's is the one to write.
  const fairHosts = new Map<string, FairHostChange>();
  for (const { effects } of passes) for (const [key, change] of effects.fairHostAppVersions) fairHosts.set(key, change);
  const attributions = passes.map((p) => ({ now: p.now, attributions: p.effects.attributions }));
  return assembleWrites({
    ...passOutcomePhases(projectId, passes),
    ...attributionPhases(projectId, attributions, fresh),
    hostAppVersions: hostAppVersionWrites(
      projectId,
      all((e) => e.hostAppVersionsSeen),
      all((e) => e.hostAppVersionChanges),
      fairHosts,
    ),
    ...grantWalkPhases(
      projectId,
      passes.map(({ now, effects }, k) => ({ now, groups: groups[k]!, grants: effects.grants, fresh: fresh[k]! })),
      {
        counts: attributionCounts(
          projectId,
          all((e) => e.attributions),
        ),
        created,
      },
      history,
    ),
    versions: versionWrites(projectId, passes),
    kvMarks: markSubjects(projectId, dirtySubjects(all((e) => e.attributions))),
  });
}
