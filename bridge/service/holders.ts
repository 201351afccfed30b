/**
 * Registers the hosts, users and teams a batch of results names, with what a pass cannot
 * carry: BOINC's create_time (it starts the RAC clock), names and cpids, through the bulk
 * route (up to 1000 of a kind per request). Each id once per run (registering is idempotent,
 * so a restarted run re-registering some is harmless).
 */
import type { BulkHolders, CobblestoneApi, HolderKind } from "./api-client";
import type { BoincDb } from "../database/boinc-db";
import { hostCpid, userCpid } from "../database/cpid";

/** The API's bound per kind and request (MAX_HOLDERS_PER_KIND). */
export const MAX_HOLDERS_PER_KIND = 1000;

export interface HolderIds {
  hosts: Set<number>;
  users: Set<number>;
  teams: Set<number>;
}

export const emptyHolderIds = (): HolderIds => ({ hosts: new Set(), users: new Set(), teams: new Set() });

/** Runs `work` over `items` with at most `limit` at a time. */
export async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** What XML 1.0 does not allow, which the API refuses in a name (docs/limits.md#strings); an old BOINC form may have stored it. */
const NOT_XML_CHARS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** BOINC's name (varchar(254) of characters) as the API takes it: such characters as U+FFFD, at most 254 code units, no pair cut in two. */
function named(name: string | null) {
  if (!name) return {};
  const cut = name.replace(NOT_XML_CHARS, "\uFFFD").slice(0, 254);
  return { name: /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut };
}

export class HolderRegistrar {
  private readonly registered = emptyHolderIds();
  count = 0;

  constructor(
    private readonly db: BoincDb,
    private readonly api: CobblestoneApi | null,
  ) {}

  /** Registers (unless a dry run) the ids not registered yet in this run. */
  async register(wanted: HolderIds): Promise<void> {
    const fresh = (kind: HolderKind) => [...wanted[kind]].filter((id) => id > 0 && !this.registered[kind].has(id));
    const [teams, users, hosts] = await Promise.all([
      this.db.teams(fresh("teams")),
      this.db.users(fresh("users")),
      this.db.hosts(fresh("hosts")),
    ]);
    const body: Required<BulkHolders> = {
      teams: teams.map((t) => ({ id: t.id, create_time: t.create_time, ...named(t.name) })),
      users: users.map((u) => ({
        id: u.id,
        create_time: u.create_time,
        team_id: Math.max(0, u.teamid),
        ...named(u.name),
        ...(u.cross_project_id && u.email_addr ? { cpid: userCpid(u.cross_project_id, u.email_addr) } : {}),
      })),
      hosts: hosts.map((h) => ({
        id: h.id,
        create_time: h.create_time,
        user_id: Math.max(0, h.userid),
        ...(h.host_cpid && h.owner_email ? { cpid: hostCpid(h.host_cpid, h.owner_email) } : {}),
      })),
    };
    const requests = Math.ceil(Math.max(body.teams.length, body.users.length, body.hosts.length) / MAX_HOLDERS_PER_KIND);
    for (let i = 0; i < requests; i++) {
      const slice = (kind: HolderKind) => body[kind].slice(i * MAX_HOLDERS_PER_KIND, (i + 1) * MAX_HOLDERS_PER_KIND);
      if (this.api) await this.api.postHolders({ teams: slice("teams"), users: slice("users"), hosts: slice("hosts") });
    }
    this.count += body.teams.length + body.users.length + body.hosts.length;
    // Ids the database does not know (deleted accounts) are left to the passes to create.
    for (const kind of ["hosts", "users", "teams"] as const) for (const id of wanted[kind]) this.registered[kind].add(id);
  }
}
