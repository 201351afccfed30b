/**
 * Registers the hosts, users and teams a batch of results names, with what a pass cannot
 * carry: BOINC's create_time (it starts the RAC clock), names and cpids. Teams first, then
 * users, then hosts, each with bounded concurrency; each id once per run (a PUT is idempotent,
 * so a restarted run re-registering some is harmless).
 */
import type { CobblestoneApi, HolderKind, PutHolderBody } from "./api-client";
import type { BoincDb } from "./boinc-db";
import { hostCpid, userCpid } from "./cpid";

export const REGISTER_CONCURRENCY = 8;

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

const named = (name: string | null) => (name ? { name: name.slice(0, 254) } : {});

export class HolderRegistrar {
  private readonly registered = emptyHolderIds();
  count = 0;

  constructor(
    private readonly db: BoincDb,
    private readonly api: CobblestoneApi | null,
  ) {}

  /** The ids not registered yet in this run; registers them (unless a dry run). */
  async register(wanted: HolderIds): Promise<void> {
    const fresh = (kind: HolderKind) => [...wanted[kind]].filter((id) => id > 0 && !this.registered[kind].has(id));
    const teams = await this.db.teams(fresh("teams"));
    const users = await this.db.users(fresh("users"));
    const hosts = await this.db.hosts(fresh("hosts"));
    await this.put(
      "teams",
      teams.map((t) => [t.id, { create_time: t.create_time, ...named(t.name) }]),
    );
    await this.put(
      "users",
      users.map((u) => [
        u.id,
        {
          create_time: u.create_time,
          team_id: Math.max(0, u.teamid),
          ...named(u.name),
          ...(u.cross_project_id && u.email_addr ? { cpid: userCpid(u.cross_project_id, u.email_addr) } : {}),
        },
      ]),
    );
    await this.put(
      "hosts",
      hosts.map((h) => [
        h.id,
        {
          create_time: h.create_time,
          user_id: Math.max(0, h.userid),
          ...(h.host_cpid && h.owner_email ? { cpid: hostCpid(h.host_cpid, h.owner_email) } : {}),
        },
      ]),
    );
    // Ids the database does not know (deleted accounts) are left to the passes to create.
    for (const kind of ["hosts", "users", "teams"] as const) for (const id of wanted[kind]) this.registered[kind].add(id);
  }

  private async put<K extends HolderKind>(kind: K, bodies: [number, PutHolderBody[K]][]): Promise<void> {
    const api = this.api;
    if (api) await eachLimited(bodies, REGISTER_CONCURRENCY, async ([id, body]) => void (await api.putHolder(kind, id, body)));
    this.count += bodies.length;
  }
}
