/**
 * The apps' ceilings as the run keeps them (bridge/running/service-apps.ts): none to write by
 * before the service's apps are read, then each app's (credit-bounds.ts), by name or by BOINC's
 * app id, and read again (a reconnection) with the database's apps kept.
 */
import { describe, expect, it } from "vitest";
import { AppCeilings } from "../../bridge/running/service-apps";

describe("the apps' ceilings of a run", () => {
  it("unbounded by app id and unreadable by name before the service's apps are read; then theirs, read again on a reconnection", () => {
    const ceilings = new AppCeilings({ byApp: new Map(), fallback: 100 });
    expect(ceilings.ofAppId(1)).toBe(Infinity);
    expect(() => ceilings.now).toThrow(/not read yet/);
    ceilings.set([{ name: "alpha", max_granted_credit: 50 }], [{ id: 1, name: "alpha" }]);
    expect(ceilings.now.of("alpha")).toBe(50);
    expect(ceilings.ofAppId(1)).toBe(50);
    ceilings.set([{ name: "alpha", max_granted_credit: 20 }]);
    expect(ceilings.ofAppId(1)).toBe(20);
  });
});
