import { z } from "@hono/zod-openapi";
import { SlugSchema } from "../common";

export const CreateAccountManagerSchema = z
  .strictObject({ slug: SlugSchema.openapi({ example: "su" }), name: z.string().min(1).max(200) })
  .openapi("CreateAccountManager");

export const CreatedAccountManagerSchema = z
  .object({
    slug: z.string(),
    token: z.string().openapi({ description: "The account manager's bearer token. Shown only this once; store it." }),
  })
  .openapi("CreatedAccountManager");
