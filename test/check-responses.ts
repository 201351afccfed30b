import { afterEach } from "vitest";
import { checkRecordedResponses } from "./support/response-schemas";

// After each test of every file: the 2xx JSON answers it got through the API helpers match the
// response schemas their routes declare (test/support/response-schemas.ts).
afterEach(async () => {
  const failures = await checkRecordedResponses();
  if (failures.length > 0) throw new Error(`answers off their documented schema:\n${failures.join("\n")}`);
});
