/**
 * The service's API as the bridge calls it: openapi-fetch over the types generated from
 * /openapi.json, so every request and answer is checked against the API by the compiler.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./api-types";
import { BridgeError } from "./errors";
import { DEFAULT_RETRY, type RetryOptions, retryingFetch } from "./retrying-fetch";

type Schemas = components["schemas"];
export type HolderKind = "hosts" | "users" | "teams";
export type BulkHolders = Schemas["BulkHoldersRequest"];

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The API's error shape, as a message for the admin. */
function explain(what: string, answer: Answer<unknown>): BridgeError {
  const status = answer.response.status;
  const body = answer.error as { error?: { code?: string; message?: string; issues?: { path: string; message: string }[] } } | undefined;
  const detail = body?.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${status}`;
  const issues = body?.error?.issues?.slice(0, 5).map((i) => `\n  ${i.path}: ${i.message}`).join("") ?? "";
  if (status === 401 || status === 403) {
    return new BridgeError(`${what}: the service refused the token (${detail}); check --token or COBBLESTONE_TOKEN and --project`);
  }
  if (status === 404 && body?.error?.code === "not_found") return new BridgeError(`${what}: ${detail} (is --project right?)`);
  return new BridgeError(`${what}: ${detail}${issues}`);
}

function ok<T>(what: string, answer: Answer<T>): T {
  if (answer.data === undefined) throw explain(what, answer);
  return answer.data;
}

export class CobblestoneApi {
  private readonly client;

  constructor(
    baseUrl: string,
    private readonly slug: string,
    token: string,
    retry: RetryOptions = DEFAULT_RETRY,
  ) {
    this.client = createClient<paths>({
      baseUrl: baseUrl.replace(/\/+$/, ""),
      headers: { Authorization: `Bearer ${token}` },
      fetch: retryingFetch(retry),
    });
  }

  private get params() {
    return { path: { slug: this.slug } };
  }

  async putApp(name: string, body: Schemas["PutApp"]) {
    return ok(`PUT app ${name}`, await this.client.PUT("/v1/projects/{slug}/apps/{app}", { params: { path: { slug: this.slug, app: name } }, body }));
  }

  async putAppVersion(id: number, body: Schemas["PutAppVersion"]) {
    return ok(
      `PUT app version ${id}`,
      await this.client.PUT("/v1/projects/{slug}/app-versions/{id}", { params: { path: { slug: this.slug, id: String(id) } }, body }),
    );
  }

  async postHolders(body: Schemas["BulkHoldersRequest"]) {
    return ok("POST holders", await this.client.POST("/v1/projects/{slug}/holders", { params: this.params, body }));
  }

  async postPass(body: Schemas["PassRequest"]) {
    return ok(`POST pass at ${body.now}`, await this.client.POST("/v1/projects/{slug}/passes", { params: this.params, body }));
  }

  async postErrors(body: Schemas["ErrorsRequest"]) {
    return ok(`POST errors at ${body.now}`, await this.client.POST("/v1/projects/{slug}/errors", { params: this.params, body }));
  }

  async rescale(now: number) {
    return ok(`POST rescale at ${now}`, await this.client.POST("/v1/projects/{slug}/rescale", { params: this.params, body: { now } }));
  }
}
