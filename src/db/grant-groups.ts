/** A pass's grants grouped by the row they credit: pass-writes builds them, read-model-writes reads them too. */
/** `job: false`: credit without a job (a trickle), so njobs does not count it. */
export type GrantPart = { credit: number; start: number; job?: boolean };

/** Who a pass credits: each grant's rows, keyed as creditRunWrites names them ("id" or "id/app"). */
export interface GrantGroups {
  readonly hosts: Map<string, GrantPart[]>;
  readonly users: Map<string, GrantPart[]>;
  readonly teams: Map<string, GrantPart[]>;
  readonly userApps: Map<string, GrantPart[]>;
  readonly teamApps: Map<string, GrantPart[]>;
}
