import { z } from "@hono/zod-openapi";
import { SlugSchema } from "../common";

export const AmParams = z.object({ am: SlugSchema.openapi({ param: { name: "am", in: "path" } }) });
