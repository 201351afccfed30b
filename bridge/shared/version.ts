/**
 * The bridge's version: the one place it is set. `--version` prints it, and `npm run bridge:pack`
 * (bridge/pack/pack.ts) writes it into the package's package.json and the tarball's name.
 */
export const BRIDGE_VERSION = "0.1.0";
