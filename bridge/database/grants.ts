/** GRANT statements as an admin pastes them: for the account the server matched (CURRENT_USER()) and the database the bridge reads. */
import type mysql from "mysql2/promise";

/** `'user'@'host'` of CURRENT_USER()'s `user@host` (a user name may itself hold an @: the host follows the last). */
export function sqlAccount(currentUser: string): string {
  const at = currentUser.lastIndexOf("@");
  const quote = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
  return at < 0 ? quote(currentUser) : `${quote(currentUser.slice(0, at))}@${quote(currentUser.slice(at + 1))}`;
}

/** A database or table name as written in a GRANT: bare where it can be, else in backticks. */
export function sqlName(name: string): string {
  return /^[A-Za-z0-9_$]+$/.test(name) && !/^\d+$/.test(name) ? name : `\`${name.replace(/`/g, "``")}\``;
}

/** CREATE first (a GRANT names a table not there yet only with it), then as the checklist lists them. */
const ORDER = ["CREATE", "SELECT", "INSERT", "UPDATE", "DELETE"];

export const inGrantOrder = (privileges: string[]) => [...new Set(privileges)].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));

/** Privileges given on some columns only (a column-level GRANT): per privilege, its columns in order. */
export type GrantColumns = Partial<Record<string, readonly string[]>>;

/** `INSERT, UPDATE (total, njobs)`: the privileges in order, each with its columns where it is column-level. */
export function privilegeList(privileges: string[], columns: GrantColumns = {}): string {
  return inGrantOrder(privileges)
    .map((p) => (columns[p]?.length ? `${p} (${columns[p]!.map(sqlName).join(", ")})` : p))
    .join(", ");
}

export function grantStatement(privileges: string[], database: string, table: string, account: string, columns: GrantColumns = {}): string {
  return `GRANT ${privilegeList(privileges, columns)} ON ${sqlName(database)}.${table === "*" ? "*" : sqlName(table)} TO ${account};`;
}

/** The account this connection's privileges are those of, and its database. */
export async function whoAndWhere(conn: mysql.Connection | mysql.Pool): Promise<{ account: string; database: string }> {
  const [rows] = await conn.query("SELECT CURRENT_USER() AS account, DATABASE() AS db");
  const row = (rows as { account: string; db: string }[])[0]!;
  return { account: sqlAccount(row.account), database: row.db };
}
