/**
 * `npm run bridge:pack`: the bridge as an npm package with no dependencies, for a BOINC server
 * that has Node but not this repository: bridge/cli.ts and what it imports bundled into one file
 * by esbuild, the small executable that checks the Node version before it loads that bundle
 * (bridge/pack/launcher.ts), the package.json of bridge/pack/package/ with the version of
 * bridge/shared/version.ts, its README, its systemd units (bridge/pack/package/systemd/) and the bundled packages' licences, packed by `npm pack` into
 * dist/bridge/cobblestone-bridge-VERSION.tgz (docs/bridge.md, step 2 of the checklist).
 */
import { execFile } from "node:child_process";
import { chmod, copyFile, cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { bundledPackageDirs, thirdPartyLicenses } from "./pack-licenses";
import { BRIDGE_VERSION } from "../shared/version";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TEMPLATE = fileURLToPath(new URL("package/", import.meta.url));
/** Where the package is staged and the tarball written (dist/ is not committed). */
export const PACK_DIR = join(ROOT, "dist", "bridge");
/** The executable (bridge/pack/launcher.ts) and the bundle it loads once the Node version is checked. */
export const BIN_FILE = "cobblestone-bridge.mjs";
export const MAIN_FILE = "cobblestone-bridge-main.mjs";
/** The systemd units and their example settings, in the package as in bridge/pack/package/ (docs/bridge.md, "Live: --follow"). */
export const SYSTEMD_DIR = "systemd";

export interface Packed {
  tarball: string;
  /** Bytes of the tarball, and of the files it holds. */
  size: number;
  unpackedSize: number;
  /** The Node versions it runs on: the template's `engines.node`, such as ">=20". */
  node: string;
}

interface Manifest {
  name: string;
  engines: { node: string };
}

// mysql2 and its dependencies are CommonJS and require Node's own modules: an ES module bundle
// has no `require` of its own, so it gets one.
const MAIN_BANNER = `// cobblestone-bridge ${BRIDGE_VERSION}: bridge/cli.ts of Cobblestone and its dependencies in one file (npm run bridge:pack), loaded by ${BIN_FILE}.
import { createRequire as __bridgeCreateRequire } from "node:module";
const require = __bridgeCreateRequire(import.meta.url);`;
const BIN_BANNER = `#!/usr/bin/env node
// cobblestone-bridge ${BRIDGE_VERSION}: checks the Node version, then runs ${MAIN_FILE} (bridge/pack/launcher.ts of Cobblestone, npm run bridge:pack).`;

export async function packBridge(): Promise<Packed> {
  await rm(PACK_DIR, { recursive: true, force: true });
  const staging = join(PACK_DIR, "package");
  await mkdir(staging, { recursive: true });
  const manifest = JSON.parse(await readFile(join(TEMPLATE, "package.json"), "utf8")) as Manifest;
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: ["bridge/cli.ts"],
    outfile: join(staging, MAIN_FILE),
    bundle: true,
    platform: "node",
    format: "esm",
    // The oldest Node the package claims: ">=20" is node20.
    target: `node${/\d+/.exec(manifest.engines.node)![0]}`,
    banner: { js: MAIN_BANNER },
    metafile: true,
    logLevel: "warning",
  });
  await build({
    absWorkingDir: ROOT,
    entryPoints: ["bridge/pack/launcher.ts"],
    outfile: join(staging, BIN_FILE),
    bundle: true,
    platform: "node",
    format: "esm",
    // Read by whatever Node the machine has, so that an old one is told which to install: Node
    // 12.20 is the oldest that runs an ES module file with import() (Ubuntu 22.04 has 12.22).
    target: "node12.20",
    banner: { js: BIN_BANNER },
    logLevel: "warning",
  });
  await chmod(join(staging, BIN_FILE), 0o755);
  const { name, ...rest } = manifest;
  await writeFile(join(staging, "package.json"), `${JSON.stringify({ name, version: BRIDGE_VERSION, ...rest }, null, 2)}\n`);
  await copyFile(join(TEMPLATE, "README.md"), join(staging, "README.md"));
  await cp(join(TEMPLATE, SYSTEMD_DIR), join(staging, SYSTEMD_DIR), { recursive: true });
  await writeFile(join(staging, "THIRD-PARTY-LICENSES.txt"), await thirdPartyLicenses(bundledPackageDirs(metafile, ROOT)));
  const { stdout } = await promisify(execFile)("npm", ["pack", "--json", "--pack-destination", PACK_DIR], { cwd: staging });
  const [packed] = JSON.parse(stdout) as { filename: string; size: number; unpackedSize: number }[];
  return { tarball: join(PACK_DIR, packed!.filename), size: packed!.size, unpackedSize: packed!.unpackedSize, node: manifest.engines.node };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const packed = await packBridge();
  const kB = (bytes: number) => `${Math.round(bytes / 1000).toLocaleString("en")} kB`;
  console.log(
    `${relative(process.cwd(), packed.tarball)}: ${kB(packed.size)} (${kB(packed.unpackedSize)} unpacked), no dependencies, Node ${packed.node}`,
  );
}
