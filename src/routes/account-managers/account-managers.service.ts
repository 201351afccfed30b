import { isPrimaryKeyConflict } from "../../db/batch";
import type { Db } from "../../db/client";
import { accountManagers } from "../../db/schema";
import { ApiError } from "../../http/errors";
import { sha256Hex } from "../../http/tokens";

/** Registers account manager `slug` with `token` (stored hashed); 409 if the slug is taken. */
export async function createAccountManager(db: Db, slug: string, name: string, token: string, now: number): Promise<void> {
  try {
    await db.insert(accountManagers).values({ slug, name, tokenHash: await sha256Hex(token), createdAt: now });
  } catch (e) {
    if (isPrimaryKeyConflict(e)) throw new ApiError(409, "conflict", `account manager '${slug}' already exists`);
    throw e;
  }
}
