/**
 * The packed bridge's executable (`cobblestone-bridge`, bridge/pack/pack.ts): checks the Node it runs
 * on, then loads the bundle beside it. The bundle itself (bridge/cli.ts and its dependencies) is
 * not even parsed by a Node older than 14, so the check comes from this small file, which any
 * Node that runs ES modules reads (node-version.ts).
 */
import "../shared/node-version";

/** The bundle, beside this file in the package: a variable, so that esbuild leaves it to be loaded at run time. */
const bundle = "./cobblestone-bridge-main.mjs";
// A bundle that fails is the process's failure, as if it had been run itself (Node prints it and exits 1).
void import(bundle);
