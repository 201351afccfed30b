import { z } from "@hono/zod-openapi";

export const QuerySchema = z.object({
  format: z.enum(["json", "xml"]).optional().openapi({ description: "xml: the shape of BOINC's gpu_ratios.php" }),
  version: z.coerce.number().positive().optional().openapi({ description: "A published version (its `version`); default the latest" }),
});
