/**
 * Reconciliation of estimated credit (what clients say they computed) with granted credit
 * (what projects validated): over a window of days, factor = min(1, granted / estimated), and
 * the confirmed credit of a day is its estimated credit × the factor. A host that claims much
 * and is granted little gets a small factor. Pure: sums in, factors out.
 */
import { RECONCILE_WINDOW_DAYS } from "./parameters";

/** One (host, project) day of estimated credit, with the user it was booked for. */
export interface EstimatedDay {
  readonly hostId: number;
  readonly url: string;
  readonly day: number;
  readonly userId: number;
  readonly ec: number;
}

/** Credit a project granted to the project's host that is this account manager's host. */
export interface GrantedDay {
  readonly hostId: number;
  readonly url: string;
  readonly day: number;
  readonly credit: number;
}

export interface Reconciled {
  readonly estimated: number;
  readonly granted: number;
  readonly factor: number;
}

/** min(1, granted / estimated); nothing estimated needs no correction. */
export function confirmedFactor(estimated: number, granted: number): number {
  return estimated > 0 ? Math.min(1, granted / estimated) : 1;
}

/** The days [first, last] the factor of `day` looks at. */
export function reconcileWindow(day: number): { first: number; last: number } {
  return { first: day - RECONCILE_WINDOW_DAYS + 1, last: day };
}

const pairKey = (hostId: number, url: string) => `${hostId}\u0000${url}`;

/**
 * The factors of `day`, per (host, project) and per (user, project), for the (host, project)
 * pairs a project has linked (`linked`: their keys from `linkKey`). A host counts for the user
 * it was last booked for in the window. Rows outside the window are ignored.
 */
export function reconcileDay(
  day: number,
  estimated: readonly EstimatedDay[],
  granted: readonly GrantedDay[],
  linked: ReadonlySet<string>,
): {
  hosts: (Reconciled & { hostId: number; url: string })[];
  users: (Reconciled & { userId: number; url: string })[];
} {
  const { first, last } = reconcileWindow(day);
  const inWindow = (d: number) => d >= first && d <= last;
  const pairs = new Map<string, { hostId: number; url: string; estimated: number; granted: number; owner: number; ownerDay: number }>();
  const pairOf = (hostId: number, url: string) => {
    const key = pairKey(hostId, url);
    let p = pairs.get(key);
    if (!p) {
      p = { hostId, url, estimated: 0, granted: 0, owner: 0, ownerDay: -Infinity };
      pairs.set(key, p);
    }
    return p;
  };
  for (const e of estimated) {
    if (!inWindow(e.day) || !linked.has(pairKey(e.hostId, e.url))) continue;
    const p = pairOf(e.hostId, e.url);
    p.estimated += e.ec;
    if (e.day > p.ownerDay) {
      p.owner = e.userId;
      p.ownerDay = e.day;
    }
  }
  for (const g of granted) {
    if (!inWindow(g.day) || !linked.has(pairKey(g.hostId, g.url))) continue;
    pairOf(g.hostId, g.url).granted += g.credit;
  }
  const users = new Map<string, { userId: number; url: string; estimated: number; granted: number }>();
  for (const p of pairs.values()) {
    // Granted credit of a host that booked nothing here has no user to count for.
    if (p.ownerDay === -Infinity) continue;
    const key = pairKey(p.owner, p.url);
    const u = users.get(key) ?? { userId: p.owner, url: p.url, estimated: 0, granted: 0 };
    u.estimated += p.estimated;
    u.granted += p.granted;
    users.set(key, u);
  }
  const withFactor = <T extends { estimated: number; granted: number }>(x: T) => ({
    ...x,
    factor: confirmedFactor(x.estimated, x.granted),
  });
  return {
    hosts: [...pairs.values()].map(({ hostId, url, estimated, granted }) => withFactor({ hostId, url, estimated, granted })),
    users: [...users.values()].map(withFactor),
  };
}

/** The key `reconcileDay` expects in `linked` for a (host, project) pair. */
export const linkKey = pairKey;
