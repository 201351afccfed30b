/** A project's numeric id by its slug, for tests that read or seed its rows in D1 directly. */
import { env } from "cloudflare:workers";

export async function projectIdOf(slug: string): Promise<number> {
  const id = await env.DB.prepare("SELECT id FROM projects WHERE slug = ?").bind(slug).first<number>("id");
  if (id === null) throw new Error(`no project '${slug}'`);
  return id;
}
