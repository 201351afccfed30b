/**
 * What systemd does with the shipped units when it starts one, for tests on machines where
 * systemd does not run (a container, CI): a unit file's settings, an EnvironmentFile='s
 * variables, and ExecStart= with its specifiers (%i, %d, %S) and variables (${X} as one word,
 * $X split on whitespace) put in, as systemd.service(5) and systemd.unit(5) describe them.
 */

/** A unit file's settings: each key's values, in order (comments and sections dropped). */
export function unitSettings(text: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m) map.set(m[1]!, [...(map.get(m[1]!) ?? []), m[2]!]);
  }
  return map;
}

/** An EnvironmentFile='s KEY=VALUE lines (the shipped example.conf has no quotes in it). */
export function environmentFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^(\w+)=(.*)$/.exec(line.trim());
    if (m) values[m[1]!] = m[2]!;
  }
  return values;
}

export interface Specifiers {
  /** %i: the instance, the project's slug. */
  instance: string;
  /** %d: the credentials directory (LoadCredential='s files). */
  credentials: string;
  /** %S: the state directories' root (/var/lib for a system service). */
  stateRoot: string;
}

/** ExecStart= as systemd runs it: the executable and its arguments. */
export function execStart(line: string, at: Specifiers, vars: Record<string, string>): { command: string; args: string[] } {
  const words = line
    .replaceAll("%i", at.instance)
    .replaceAll("%d", at.credentials)
    .replaceAll("%S", at.stateRoot)
    .split(/\s+/)
    .filter((w) => w !== "");
  const expanded = words.flatMap((word) => {
    const alone = /^\$(\w+)$/.exec(word);
    if (alone) return (vars[alone[1]!] ?? "").split(/\s+/).filter((w) => w !== "");
    return [word.replace(/\$\{(\w+)\}/g, (_, v: string) => vars[v] ?? "")];
  });
  const [command, ...args] = expanded;
  return { command: command!, args };
}
