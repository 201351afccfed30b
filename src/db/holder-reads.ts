/**
 * Where each kind of holder is read from. A user's credit may ride on one of its hosts
 * (docs/storage.md#owners-credit-rides-on-a-host), so users are read through users_now, never
 * the users table's own credit columns; writes go to the tables.
 */
import { hosts, teams, usersNow } from "./schema";

export const holderReadSources = { hosts, users: usersNow, teams } as const;
