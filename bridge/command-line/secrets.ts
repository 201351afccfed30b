/**
 * The token and the database URL without a command line or an environment to show them: a
 * secrets file the bridge reads itself (`--secrets-file FILE`, KEY=VALUE lines), and systemd's
 * credentials ($CREDENTIALS_DIRECTORY, filled by LoadCredential= of the shipped units in
 * bridge/pack/package/systemd/). A value read here goes into the options and nowhere else: not into
 * process.env, not into a message (docs/bridge.md, "Secrets").
 *
 * Not `--env-file`: node itself looks for `--env-file` anywhere on its command line, the
 * script's arguments included (Node 20 and 22 alike), and exits 9 before the bridge starts
 * when it cannot open the file, as under systemd, where the file is the bridge's credential.
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { BridgeError } from "../shared/errors";

/** The keys a secrets file may set. */
export const SECRETS_FILE_KEYS = ["COBBLESTONE_TOKEN", "BOINC_DB_URL"] as const;
type SecretsKey = (typeof SECRETS_FILE_KEYS)[number];

/** The credentials the bridge reads from $CREDENTIALS_DIRECTORY when they are there. */
export const CREDENTIALS = {
  /** The project's token, as COBBLESTONE_TOKEN. */
  token: "cobblestone-token",
  /** The database URL, as BOINC_DB_URL. */
  dbUrl: "boinc-db-url",
  /** The project's config.xml, as --boinc-config. */
  boincConfig: "boinc-config.xml",
} as const;

export interface Secrets {
  token: string | undefined;
  /** The database URL, when something gave one (else config.xml gives it: resolveDatabase). */
  db: string | undefined;
  /** config.xml: --boinc-config, else the credential boinc-config.xml. */
  boincConfig: string | undefined;
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses KEY=VALUE lines: blank lines and `#` comments skipped, an optional leading `export `,
 * a value in one pair of matching quotes taken without them (nothing else is unquoted or
 * expanded: a `%`, `$` or `\` is the character itself), and a `#` after a space ends the line
 * as a comment, as the shell reads it (docs/bridge.md's step 5 has one after each value; a token
 * or a percent-encoded URL has neither a space nor a `#`). A line the bridge cannot read is named by
 * its number only, never quoted, since it may be a secret.
 */
export function parseSecretsFile(text: string, file: string): Partial<Record<SecretsKey, string>> {
  const values: Partial<Record<SecretsKey, string>> = {};
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const where = `${file} line ${i + 1}`;
    const eq = line.indexOf("=");
    const key =
      eq < 0
        ? ""
        : line
            .slice(0, eq)
            .replace(/^export\s+/, "")
            .trim();
    if (!KEY.test(key))
      throw new BridgeError(`--secrets-file: ${where} is not KEY=VALUE (the file takes ${SECRETS_FILE_KEYS.join(" and ")})`);
    if (!(SECRETS_FILE_KEYS as readonly string[]).includes(key)) {
      throw new BridgeError(`--secrets-file: ${where} sets ${key}; the file takes only ${SECRETS_FILE_KEYS.join(" and ")}`);
    }
    if (values[key as SecretsKey] !== undefined) throw new BridgeError(`--secrets-file: ${where} sets ${key} a second time`);
    const value = unquoted(line.slice(eq + 1).trim());
    if (value === "") throw new BridgeError(`--secrets-file: ${where} sets ${key} to nothing`);
    values[key as SecretsKey] = value;
  }
  return values;
}

/** A value without its one pair of quotes, or without the comment after it. */
function unquoted(value: string): string {
  const quote = value[0];
  if ((quote === "'" || quote === '"') && value.length >= 2 && value.endsWith(quote)) return value.slice(1, -1);
  const quotedThenComment = /^(["'])(.*?)\1\s+#.*$/.exec(value);
  if (quotedThenComment) return quotedThenComment[2]!;
  return value.replace(/\s+#.*$/, "");
}

/** `--secrets-file FILE`: refused when its group or other users may read or write it. */
export async function readSecretsFile(file: string): Promise<Partial<Record<SecretsKey, string>>> {
  let mode: number;
  try {
    const s = await stat(file);
    if (!s.isFile()) throw new BridgeError(`--secrets-file ${file} is not a file`);
    mode = s.mode & 0o777;
  } catch (e) {
    if (e instanceof BridgeError) throw e;
    throw new BridgeError(`cannot read --secrets-file ${file}: ${(e as Error).message}`);
  }
  if ((mode & 0o077) !== 0) {
    throw new BridgeError(
      `--secrets-file ${file} is open to its group or to other users (mode ${mode.toString(8).padStart(4, "0")}), and it holds the project's token and the database password: make it the owner's alone (chmod 600 ${file}) and run the bridge again`,
    );
  }
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    throw new BridgeError(`cannot read --secrets-file ${file}: ${(e as Error).message}`);
  }
  return parseSecretsFile(text, file);
}

/** One credential's text, trimmed (a file written by `echo` ends in a newline); undefined when it is not there or empty. */
async function credential(dir: string, name: string): Promise<string | undefined> {
  try {
    const text = (await readFile(join(dir, name), "utf8")).trim();
    return text === "" ? undefined : text;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new BridgeError(`cannot read the credential ${name} in $CREDENTIALS_DIRECTORY (${dir}): ${(e as Error).message}`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The token and the database, each from the first source that has it: the command line
 * (`--token`, `--db`, `--boinc-config`), `--secrets-file`, systemd's credentials, the environment
 * (COBBLESTONE_TOKEN, BOINC_DB_URL).
 */
export async function resolveSecrets(
  given: { token?: string; db?: string; boincConfig?: string; secretsFile?: string },
  env: NodeJS.ProcessEnv,
): Promise<Secrets> {
  const file = given.secretsFile === undefined ? {} : await readSecretsFile(given.secretsFile);
  const dir = env.CREDENTIALS_DIRECTORY || undefined;
  const cred = async (name: string) => (dir === undefined ? undefined : credential(dir, name));
  const pick = async (value: string | undefined, key: SecretsKey, name: string): Promise<string | undefined> =>
    value ?? file[key] ?? (await cred(name)) ?? (env[key] || undefined);
  const token = await pick(given.token, "COBBLESTONE_TOKEN", CREDENTIALS.token);
  const db = await pick(given.db, "BOINC_DB_URL", CREDENTIALS.dbUrl);
  let boincConfig = given.boincConfig;
  if (boincConfig === undefined && dir !== undefined && (await exists(join(dir, CREDENTIALS.boincConfig)))) {
    boincConfig = join(dir, CREDENTIALS.boincConfig);
  }
  return { token, db, boincConfig };
}
