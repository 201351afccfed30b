/**
 * The Node the bridge runs on, checked before anything else is loaded: an older Node fails
 * somewhere inside the bundle with a message that names no version (Debian 12's own `nodejs` is
 * 18; Ubuntu 22.04's is 12, which cannot even parse the bundle). bridge/cli.ts imports this
 * module first, and the packed executable (bridge/pack/launcher.ts) runs it before it loads the bundle.
 *
 * Its own code must run on any Node an admin may have: no syntax or API newer than ES2015 (no
 * `?.`, `??`, `padStart`, top-level await), no import. Exit 2, with one line, as for bad input.
 */

/** The oldest Node major the bridge runs on: bridge/pack/package/package.json's `engines.node` says the same (pack.test.ts). */
export const MIN_NODE_MAJOR = 20;

/** What to tell an admin whose Node is `version` (process.versions.node), or null when it will do. */
export function oldNodeProblem(version: string): string | null {
  const major = parseInt(String(version).replace(/^v/, "").split(".")[0] || "", 10);
  if (major >= MIN_NODE_MAJOR) return null;
  return (
    "bridge: this is Node " +
    version +
    "; the bridge needs Node " +
    MIN_NODE_MAJOR +
    " or later (Debian 12's and Ubuntu's own nodejs packages are older): install nodejs " +
    MIN_NODE_MAJOR +
    ".x or 22.x from NodeSource's packages, or Node's own binaries, make it the `node` on the PATH, and run the same command again"
  );
}

const problem = oldNodeProblem(process.versions.node);
if (problem !== null) {
  process.stderr.write(problem + "\n");
  process.exit(2);
}
