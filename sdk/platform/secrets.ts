/**
 * Team secrets area of the platform API (docs/service.md#secrets). Every call authenticates with
 * the API key. A value goes out in a request body and never comes back: answers are metadata only.
 * `ref` is a secret's ID (`sec_…`) or its name.
 *
 * | method  | verb and path                    | success |
 * |---------|----------------------------------|---------|
 * | create  | POST /secrets                    | 201     |
 * | list    | GET /secrets (X-Next-Token)      | 200     |
 * | get     | GET /secrets/{ref}               | 200     |
 * | update  | POST /secrets/{ref}              | 200     |
 * | delete  | DELETE /secrets/{ref}            | 204     |
 */
import { z } from "zod";
import { header, type CallOptions, type HttpClient } from "../transport/http";
import { SecretInfo, type NewSecret, type SecretUpdate } from "../schemas/secrets";

/** One page of {@link Secrets.list}; `nextToken` is absent on the last page. */
export interface SecretPage {
  secrets: SecretInfo[];
  nextToken?: string;
}

const SecretInfos = z.array(SecretInfo);

export class Secrets {
  constructor(private readonly http: HttpClient) {}

  /** Creates a secret with its first version. Not repeated after a dropped connection. @throws `conflict` for a name in use. */
  create(body: NewSecret, call?: CallOptions): Promise<SecretInfo> {
    return this.http.call({ method: "POST", route: "/secrets", body, auth: "apiKey" }, SecretInfo, call);
  }

  /** One page of the team's secrets (`limit` 1–100). */
  async list(q: { limit?: number; nextToken?: string } = {}, call?: CallOptions): Promise<SecretPage> {
    const op = { method: "GET", route: "/secrets", query: { limit: q.limit, nextToken: q.nextToken }, auth: "apiKey" } as const;
    const res = await this.http.exchange(op, call);
    const secrets = this.http.parse(op, SecretInfos, res);
    const nextToken = header(res, "x-next-token");
    return nextToken ? { secrets, nextToken } : { secrets };
  }

  /** A secret's metadata. @throws `not_found`. */
  get(ref: string, call?: CallOptions): Promise<SecretInfo> {
    return this.http.call({ method: "GET", route: "/secrets/{id}", params: { id: ref }, auth: "apiKey" }, SecretInfo, call);
  }

  /**
   * Writes a new version (same ID and name). Not repeated after a dropped connection: each attempt
   * would add a version. @throws `not_found`.
   */
  update(ref: string, body: SecretUpdate, call?: CallOptions): Promise<SecretInfo> {
    return this.http.call({ method: "POST", route: "/secrets/{id}", params: { id: ref }, body, auth: "apiKey" }, SecretInfo, call);
  }

  /** Deletes a secret and all its versions. @throws `not_found` when it is gone. */
  delete(ref: string, call?: CallOptions): Promise<void> {
    return this.http.callVoid({ method: "DELETE", route: "/secrets/{id}", params: { id: ref }, auth: "apiKey" }, call);
  }
}
