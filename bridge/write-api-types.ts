/** `npm run bridge:types`: starts the service locally and writes bridge/api-types.ts from its document. */
import { writeFile } from "node:fs/promises";
import { startWranglerDev } from "../test/browser/wrangler-dev";
import { apiTypesFrom } from "./api-types-source";

const server = await startWranglerDev("bridge-types-admin-token");
try {
  const document = await (await fetch(`${server.base}/openapi.json`)).json();
  await writeFile(new URL("./api-types.ts", import.meta.url), await apiTypesFrom(document));
  console.log("wrote bridge/api-types.ts");
} finally {
  await server.stop();
}
