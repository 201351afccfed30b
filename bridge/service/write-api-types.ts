/** `npm run bridge:types`: writes bridge/service/generated/api-types.ts from the service's /openapi.json. */
import { writeFile } from "node:fs/promises";
import { openApiDocument } from "../../scripts/openapi-document";
import { apiTypesFrom } from "./api-types-source";

await writeFile(new URL("./generated/api-types.ts", import.meta.url), await apiTypesFrom(await openApiDocument()));
console.log("wrote bridge/service/generated/api-types.ts");
