/**
 * The service's API as the bridge calls it: openapi-fetch over the types generated from
 * /openapi.json, so every request and answer is checked against the API by the compiler.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api-types";
import { AnswerTooLarge, DEFAULT_MAX_ANSWER_BYTES, readCapped } from "./capped-answer";
import { BridgeError } from "../shared/errors";
import { DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_RETRY, type RetryOptions, retryingFetch } from "./retrying-fetch";

type Schemas = components["schemas"];
export type HolderKind = "hosts" | "users" | "teams";
export type BulkHolders = Schemas["BulkHoldersRequest"];
export type PassBatchBody = Schemas["PassBatchRequest"];
export type TrickleBody = Schemas["TrickleRequest"];

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

type ApiIssue = { path: string; message: string };

/** Turns an issue path into the ids it names (`workunit 12, result 345`), using the body sent. */
export type NameIssue = (path: string) => string | null;

/** The API's error shape, as a message for the admin. */
function explain(what: string, answer: Answer<unknown>, name: NameIssue = () => null): BridgeError {
  const status = answer.response.status;
  const body = answer.error as { error?: { code?: string; message?: string; issues?: ApiIssue[] } } | undefined;
  const detail = body?.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${status}`;
  const issues =
    body?.error?.issues
      ?.slice(0, 5)
      .map((i) => {
        const ids = name(i.path);
        return `\n  ${ids ? `${ids} (${i.path})` : i.path}: ${i.message}`;
      })
      .join("") ?? "";
  if (status === 401 || status === 403) {
    return new BridgeError(
      `${what}: the service refused the token (${detail}); check --token or COBBLESTONE_TOKEN (in --secrets-file, the credential cobblestone-token or the environment) and --project`,
    );
  }
  if (status === 404 && body?.error?.code === "not_found" && !issues) return new BridgeError(`${what}: ${detail} (is --project right?)`);
  // The service failing (a 500: the same request would get it again, so a run stops on it) or
  // busy: no refusal of the bridge's, and a restart is the retry (exit 75, not 2).
  const unavailable = status >= 500 || status === 429;
  return new BridgeError(`${what}: ${detail}${issues}`, unavailable ? { kind: "unavailable" } : {});
}

function ok<T>(what: string, answer: Answer<T>, name?: NameIssue): T {
  if (answer.data === undefined) throw explain(what, answer, name);
  return answer.data;
}

/** `passes[k].workunits[i].results[j]…` of a batch as the BOINC ids it names. */
export function batchIssueNamer(body: PassBatchBody): NameIssue {
  return (path) => {
    const m = /^passes\[(\d+)\](?:\.workunits\[(\d+)\](?:\.results\[(\d+)\])?)?/.exec(path);
    if (!m) return null;
    const pass = body.passes[Number(m[1])];
    if (!pass) return null;
    const parts = [`pass at ${pass.now}`];
    const wu = m[2] === undefined ? undefined : pass.workunits[Number(m[2])];
    if (wu) parts.push(`workunit ${wu.id}`);
    const result = wu && m[3] !== undefined ? wu.results[Number(m[3])] : undefined;
    if (result) parts.push(`result ${result.id}`);
    return parts.join(", ");
  };
}

export class CobblestoneApi {
  private readonly client;
  /** Each request's fetch: retried, timed and capped, its retries and failure naming it as `what`. */
  private readonly fetchAs: (what: string) => typeof fetch;

  /** `beforeWrite`: awaited before each attempt of a request that changes the service (the bridge's one-run guard, run-guard.ts); a throw stops it unsent. */
  constructor(
    private readonly baseUrl: string,
    private readonly slug: string,
    private readonly token: string,
    private readonly retry: RetryOptions = DEFAULT_RETRY,
    beforeWrite?: () => Promise<void>,
  ) {
    const send: typeof fetch = beforeWrite
      ? async (input, init) => {
          const method = init?.method ?? (input instanceof Request ? input.method : "GET");
          if (method !== "GET") await beforeWrite();
          return fetch(input, init);
        }
      : fetch;
    this.fetchAs = (what) => retryingFetch(retry, send, what);
    // Every call names its request (fetchAs); the default is there for a call that does not.
    this.client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` }, fetch: retryingFetch(retry, send) });
  }

  private get params() {
    return { path: { slug: this.slug } };
  }

  /**
   * One read, not retried, before anything else: a wrong --url fails at once, and a wrong
   * token or project is named before the first write.
   */
  async check(): Promise<void> {
    const url = `${this.baseUrl}/v1/projects/${encodeURIComponent(this.slug)}/rate-limit`;
    const timeoutMs = this.retry.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    let response: Response;
    try {
      const answer = await fetch(url, { headers: { Authorization: `Bearer ${this.token}` }, signal: AbortSignal.timeout(timeoutMs) });
      response = await readCapped(answer, this.retry.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES);
    } catch (e) {
      if (e instanceof AnswerTooLarge) {
        throw new BridgeError(`checking project '${this.slug}' at ${this.baseUrl}: ${e.message}; is --url the Cobblestone service?`);
      }
      if ((e as Error).name === "TimeoutError") {
        throw new BridgeError(
          `the service at ${this.baseUrl} did not answer within ${timeoutMs / 1000} s (checking project '${this.slug}'); is --url right and the service up? (The time limit: --request-timeout.)`,
          { kind: "unavailable" },
        );
      }
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new BridgeError(
        `cannot reach the service at ${this.baseUrl} (${cause?.code ?? cause?.message ?? (e as Error).message}); is --url right and the service up?`,
        { kind: "unavailable" },
      );
    }
    if (response.ok) {
      await response.body?.cancel();
      return;
    }
    const error = await response.json().catch(() => undefined);
    if (response.status === 404 && (error as { error?: { code?: string } })?.error?.code === undefined) {
      throw new BridgeError(`${this.baseUrl} answered 404 without the API's error shape: is --url the Cobblestone service?`);
    }
    throw explain(`checking project '${this.slug}'`, { error, response });
  }

  async apps() {
    const what = "GET apps";
    return ok(what, await this.client.GET("/v1/projects/{slug}/apps", { params: this.params, fetch: this.fetchAs(what) })).apps;
  }

  async appVersions() {
    const what = "GET app versions";
    return ok(what, await this.client.GET("/v1/projects/{slug}/app-versions", { params: this.params, fetch: this.fetchAs(what) }))
      .app_versions;
  }

  async putApp(name: string, body: Schemas["PutApp"]) {
    const what = `PUT app ${name}`;
    return ok(
      what,
      await this.client.PUT("/v1/projects/{slug}/apps/{app}", {
        params: { path: { slug: this.slug, app: name } },
        body,
        fetch: this.fetchAs(what),
      }),
    );
  }

  async putAppVersion(id: number, body: Schemas["PutAppVersion"]) {
    const what = `PUT app version ${id}`;
    return ok(
      what,
      await this.client.PUT("/v1/projects/{slug}/app-versions/{id}", {
        params: { path: { slug: this.slug, id: String(id) } },
        body,
        fetch: this.fetchAs(what),
      }),
    );
  }

  async postHolders(body: Schemas["BulkHoldersRequest"]) {
    const what = "POST holders";
    return ok(what, await this.client.POST("/v1/projects/{slug}/holders", { params: this.params, body, fetch: this.fetchAs(what) }));
  }

  async putHost(id: number, body: Schemas["PutHost"]) {
    const what = `PUT host ${id}`;
    return ok(
      what,
      await this.client.PUT("/v1/projects/{slug}/hosts/{id}", {
        params: { path: { slug: this.slug, id: String(id) } },
        body,
        fetch: this.fetchAs(what),
      }),
    );
  }

  async postTrickles(body: TrickleBody) {
    const name: NameIssue = (path) => {
      const m = /^messages\[(\d+)\]/.exec(path);
      const message = m ? body.messages[Number(m[1])] : undefined;
      return message ? `trickle message ${message.id} of host ${message.host_id}` : null;
    };
    const what = `POST ${body.messages.length} trickle messages`;
    return ok(what, await this.client.POST("/v1/projects/{slug}/trickles", { params: this.params, body, fetch: this.fetchAs(what) }), name);
  }

  async postPassBatch(body: PassBatchBody) {
    const span = `${body.passes[0]!.now}${body.passes.length > 1 ? `…${body.passes.at(-1)!.now}` : ""}`;
    const what = `POST ${body.passes.length} passes at ${span}`;
    return ok(
      what,
      await this.client.POST("/v1/projects/{slug}/pass-batches", { params: this.params, body, fetch: this.fetchAs(what) }),
      batchIssueNamer(body),
    );
  }

  async postErrors(body: Schemas["ErrorsRequest"]) {
    const name: NameIssue = (path) => {
      const m = /^results\[(\d+)\]/.exec(path);
      const r = m ? body.results[Number(m[1])] : undefined;
      return r ? `result ${r.id}` : null;
    };
    const what = `POST errors at ${body.now}`;
    return ok(what, await this.client.POST("/v1/projects/{slug}/errors", { params: this.params, body, fetch: this.fetchAs(what) }), name);
  }

  async rescale(now: number) {
    const what = `POST rescale at ${now}`;
    return ok(
      what,
      await this.client.POST("/v1/projects/{slug}/rescale", { params: this.params, body: { now }, fetch: this.fetchAs(what) }),
    );
  }
}
