import { z } from "@hono/zod-openapi";
import { SlugSchema, TEXT_LIMITS, storedText } from "../common";

export const CreateAccountManagerSchema = z
  .strictObject({ slug: SlugSchema.openapi({ example: "su" }), name: storedText(TEXT_LIMITS.displayName).min(1) })
  .openapi("CreateAccountManager");

export const CreatedAccountManagerSchema = z
  .object({
    slug: z.string(),
    token: z.string().openapi({ description: "The account manager's bearer token. Shown only this once; store it." }),
  })
  .openapi("CreatedAccountManager");
