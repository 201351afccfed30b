import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { accountManagers } from "../../db/schema";
import { ApiError } from "../../http/errors";
import { sha256Hex } from "../../http/tokens";
import { ROTATION_GRACE_SECONDS } from "../../limits";

type AccountManager = typeof accountManagers.$inferSelect;

/** The account manager `slug` (404 if there is none). */
export async function accountManagerBySlug(db: Db, slug: string): Promise<AccountManager> {
  const [am] = await db.select().from(accountManagers).where(eq(accountManagers.slug, slug));
  if (!am) throw new ApiError(404, "not_found", `no account manager '${slug}'`);
  return am;
}

/** Stores `token` (hashed) as the current token; answers when the previous one stops working (null: at once). */
export async function rotateAccountManagerToken(db: Db, am: AccountManager, token: string, now: number): Promise<number | null> {
  // A revoked token gets no grace: only the new one works.
  const previousExpiresAt = am.revokedAt === null ? now + ROTATION_GRACE_SECONDS : null;
  await db
    .update(accountManagers)
    .set({
      tokenHash: await sha256Hex(token),
      previousTokenHash: am.revokedAt === null ? am.tokenHash : null,
      previousExpiresAt,
      revokedAt: null,
    })
    .where(eq(accountManagers.id, am.id));
  return previousExpiresAt;
}

/** Stops every token of the account manager at once, until the next rotation. */
export async function revokeAccountManagerTokens(db: Db, amId: number, now: number): Promise<void> {
  await db
    .update(accountManagers)
    .set({ revokedAt: now, previousTokenHash: null, previousExpiresAt: null })
    .where(eq(accountManagers.id, amId));
}
