/**
 * The licences of the packages bundled into cobblestone-bridge-main.mjs (bridge/pack/pack.ts): their
 * licences ask that their notices travel with their code, and the bundle carries the code.
 */
import { readFile, readdir } from "node:fs/promises";
import { resolve } from "node:path";
import type { Metafile } from "esbuild";

const MODULES = "node_modules/";

/** The package folder of each bundled file under node_modules (a scoped name keeps its scope), once each. */
export function bundledPackageDirs(metafile: Metafile, workingDir: string): string[] {
  const dirs = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const at = input.lastIndexOf(MODULES);
    if (at < 0) continue;
    const [first, second] = input.slice(at + MODULES.length).split("/");
    const name = first!.startsWith("@") ? `${first}/${second}` : first!;
    dirs.add(resolve(workingDir, input.slice(0, at + MODULES.length) + name));
  }
  return [...dirs].sort();
}

/** One text: each bundled package's name, version and licence, then its licence file as it ships it. */
export async function thirdPartyLicenses(packageDirs: string[]): Promise<string> {
  const sections = await Promise.all(
    packageDirs.map(async (dir) => {
      const manifest = JSON.parse(await readFile(resolve(dir, "package.json"), "utf8")) as {
        name: string;
        version: string;
        license?: string;
      };
      const file = (await readdir(dir)).find((f) => /^licen[cs]e/i.test(f));
      const text = file
        ? (await readFile(resolve(dir, file), "utf8")).trim()
        : `(no licence file in the package; its package.json says ${manifest.license})`;
      return `${manifest.name}@${manifest.version} (${manifest.license ?? "no licence named"})\n\n${text}\n`;
    }),
  );
  return `Packages bundled into cobblestone-bridge-main.mjs, with their licences.\n\n${sections.join("\n---\n\n")}`;
}
