/**
 * docs/walkthrough.md as a script, and its sample outputs as values to compare with the
 * service's answers (test/docs/walkthrough.test.ts).
 *
 * A sample is either the `# …` comment lines right after a command in a ```sh block (the
 * command's output), or a ```json block (the output of the last command of the ```sh block
 * before it). A comment after a blank line or at a block's start is prose, not a sample.
 * In a sample, `…` elides: a trailing `"…": "…"` or `…` member (more members), a `…` array
 * element (more elements), the end of a number (`0.68764…`: its first digits) or of a string
 * (`"cbp_…"`).
 */

export interface Sample {
  /** The sample's text, as in the doc. */
  text: string;
  /** Where in the doc: the line of its first line. */
  line: number;
}

export interface WalkthroughScript {
  /** The ```sh blocks, joined, with a line `<MARK><n>` printed where sample n's output ends. */
  script: string;
  samples: Sample[];
}

export const MARK = "@@walkthrough-sample ";

/** The script of the walkthrough's ```sh blocks and the samples to check, in order. */
export function walkthroughScript(markdown: string): WalkthroughScript {
  const lines = markdown.split("\n");
  const script: string[] = [];
  const samples: Sample[] = [];
  let i = 0;
  while (i < lines.length) {
    const fence = lines[i]!.trim();
    if (fence === "```sh" || fence === "```json") {
      const start = i + 1;
      let end = start;
      while (lines[end]!.trim() !== "```") end++;
      const body = lines.slice(start, end);
      if (fence === "```json") {
        // The output of the last command before it.
        script.push(`printf '\\n%s\\n' "${MARK}${samples.length}"`);
        samples.push({ text: body.join("\n"), line: start + 1 });
      } else {
        let previousIsCommand = false;
        for (let j = 0; j < body.length; j++) {
          const line = body[j]!;
          if (line.startsWith("#") && previousIsCommand) {
            const sample: string[] = [];
            while (j < body.length && body[j]!.startsWith("#")) sample.push(body[j++]!.replace(/^# ?/, ""));
            j--;
            script.push(`printf '\\n%s\\n' "${MARK}${samples.length}"`);
            samples.push({ text: sample.join("\n"), line: start + j - sample.length + 2 });
            previousIsCommand = false;
          } else {
            script.push(line);
            previousIsCommand = line.trim() !== "" && !line.startsWith("#");
          }
        }
      }
      i = end + 1;
    } else i++;
  }
  return { script: script.join("\n"), samples };
}

/** Splits a run's output at the marks: what was printed before each sample's mark, since the last. */
export function outputsBySample(output: string): Map<number, string> {
  const byIndex = new Map<number, string>();
  let current: string[] = [];
  for (const line of output.split("\n")) {
    if (line.startsWith(MARK)) {
      byIndex.set(Number(line.slice(MARK.length)), current.join("\n"));
      current = [];
    } else current.push(line);
  }
  return byIndex;
}

/** An elided part of a sample. */
export const MORE = Symbol("…");
export class Prefix {
  constructor(readonly text: string) {}
}
export class Text {
  constructor(readonly line: string) {}
}
export type Value = null | boolean | number | string | Prefix | Text | Value[] | { [key: string]: Value } | typeof MORE;

/** The values in a text: JSON values with the elisions above, and other lines as Text. */
export function parseValues(text: string): Value[] {
  const values: Value[] = [];
  let pos = 0;
  const s = text;
  const ws = () => {
    while (pos < s.length && /\s/.test(s[pos]!)) pos++;
  };
  const fail = (): never => {
    throw new SyntaxError(`not a value at ${pos}`);
  };
  const value = (): Value => {
    ws();
    const c = s[pos];
    if (c === "{") {
      pos++;
      const obj: { [key: string]: Value } = {};
      ws();
      if (s[pos] === "}") return (pos++, obj);
      for (;;) {
        ws();
        if (s[pos] === "…") {
          pos++;
          obj["…"] = MORE;
        } else {
          const key = value();
          if (typeof key !== "string") fail();
          ws();
          if (s[pos++] !== ":") fail();
          const v = value();
          obj[key as string] = (key as string) === "…" ? MORE : v;
        }
        ws();
        if (s[pos] === ",") pos++;
        else if (s[pos] === "}") return (pos++, obj);
        else fail();
      }
    }
    if (c === "[") {
      pos++;
      const arr: Value[] = [];
      ws();
      if (s[pos] === "]") return (pos++, arr);
      for (;;) {
        ws();
        if (s[pos] === "…") {
          pos++;
          arr.push(MORE);
        } else arr.push(value());
        ws();
        if (s[pos] === ",") pos++;
        else if (s[pos] === "]") return (pos++, arr);
        else fail();
      }
    }
    if (c === '"') {
      let end = pos + 1;
      while (s[end] !== '"') end += s[end] === "\\" ? 2 : 1;
      const str = JSON.parse(s.slice(pos, end + 1)) as string;
      pos = end + 1;
      return str.endsWith("…") && str !== "…" ? new Prefix(str.slice(0, -1)) : str;
    }
    const literal = /^(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?…?|true|false|null)/.exec(s.slice(pos));
    if (!literal) fail();
    pos += literal![0].length;
    if (literal![0].endsWith("…")) return new Prefix(literal![0].slice(0, -1));
    return JSON.parse(literal![0]) as Value;
  };
  for (;;) {
    ws();
    if (pos >= s.length) return values;
    const lineEnd = s.indexOf("\n", pos) === -1 ? s.length : s.indexOf("\n", pos);
    const save = pos;
    try {
      if (!/^(?:[[{"\-\d]|true|false|null)/.test(s.slice(pos, pos + 5))) throw new SyntaxError("text");
      const v = value();
      // A value ends its line or another value follows (curl prints no newline after a body);
      // a header line such as `ETag: W/"…"` is text.
      const rest = s.slice(pos, s.indexOf("\n", pos) === -1 ? s.length : s.indexOf("\n", pos)).trim();
      if (rest !== "" && !/^[[{]/.test(rest)) throw new SyntaxError("text");
      values.push(v);
    } catch {
      pos = save;
      values.push(new Text(s.slice(pos, lineEnd).trim()));
      pos = lineEnd;
    }
  }
}

/**
 * Where `actual` differs from `sample`, as paths with what was expected ([] when it matches).
 * Numbers are compared exactly, except: a time (Unix seconds, 1e9–4e9) must be within a day
 * of `now`, since each run has its own; a date (YYYY-MM-DD) must be a date within 8 days of it;
 * an average that decays with time (`recent_average_credit`, decayed to the moment of the
 * answer, and `expavg_credit`, which depends on the seconds between the walkthrough's `date`
 * and the pass) may differ by one part in a thousand (about 15 minutes of decay), its shown
 * digits too. An ETag may be any.
 */
export function differences(sample: Value, actual: unknown, now: number, path = "$"): string[] {
  const key = path.split(".").at(-1) ?? "";
  if (sample === MORE) return [];
  if (sample instanceof Text) {
    if (!(actual instanceof Text)) return [`${path}: expected the line ${sample.line}, got ${JSON.stringify(actual)}`];
    const [name, ...rest] = sample.line.split(":");
    if (name!.toLowerCase() === "etag")
      return /^etag: W\/".+"$/i.test(actual.line) ? [] : [`${path}: expected an ETag, got ${actual.line}`];
    return rest.length > 0 && name!.toLowerCase() === actual.line.split(":")[0]!.toLowerCase()
      ? actual.line.slice(name!.length).trim() === sample.line.slice(name!.length).trim()
        ? []
        : [`${path}: expected ${sample.line}, got ${actual.line}`]
      : actual.line === sample.line
        ? []
        : [`${path}: expected ${sample.line}, got ${actual.line}`];
  }
  const decays = key === "recent_average_credit" || key === "expavg_credit";
  if (sample instanceof Prefix && decays && typeof actual === "number" && /^-?\d/.test(sample.text))
    return Math.abs(actual - Number(sample.text)) <= 1e-3 * Math.abs(Number(sample.text))
      ? []
      : [`${path}: expected about ${sample.text}, got ${actual}`];
  if (sample instanceof Prefix)
    return String(actual).startsWith(sample.text) ? [] : [`${path}: expected ${sample.text}…, got ${JSON.stringify(actual)}`];
  if (Array.isArray(sample)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    const open = sample.includes(MORE);
    const items = sample.filter((v) => v !== MORE);
    if (open ? actual.length < items.length : actual.length !== items.length)
      return [`${path}: expected ${items.length}${open ? " or more" : ""} elements, got ${actual.length}`];
    return items.flatMap((v, i) => differences(v, actual[i], now, `${path}[${i}]`));
  }
  if (sample !== null && typeof sample === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual))
      return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    const open = "…" in sample;
    const keys = Object.keys(sample).filter((k) => k !== "…");
    const extra = open ? [] : Object.keys(actual).filter((k) => !keys.includes(k));
    return [
      ...extra.map((k) => `${path}.${k}: in the answer, not in the sample`),
      ...keys.flatMap((k) =>
        k in actual
          ? differences(sample[k]!, (actual as Record<string, unknown>)[k], now, `${path}.${k}`)
          : [`${path}.${k}: missing from the answer`],
      ),
    ];
  }
  if (typeof sample === "number") {
    if (typeof actual !== "number") return [`${path}: expected a number, got ${JSON.stringify(actual)}`];
    if (sample >= 1e9 && sample <= 4e9)
      return Math.abs(actual - now) <= 86_400 ? [] : [`${path}: expected a time near ${now}, got ${actual}`];
    const tolerance = decays ? 1e-3 : 1e-12;
    return Math.abs(actual - sample) <= tolerance * Math.max(1, Math.abs(sample)) ? [] : [`${path}: expected ${sample}, got ${actual}`];
  }
  if (typeof sample === "string" && /^\d{4}-\d{2}-\d{2}$/.test(sample)) {
    const days =
      typeof actual === "string" && /^\d{4}-\d{2}-\d{2}$/.test(actual) ? Math.abs(Date.parse(actual) / 1000 - now) / 86_400 : Infinity;
    return days <= 8 ? [] : [`${path}: expected a date near today, got ${JSON.stringify(actual)}`];
  }
  return sample === actual ? [] : [`${path}: expected ${JSON.stringify(sample)}, got ${JSON.stringify(actual)}`];
}
