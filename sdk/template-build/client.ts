/**
 * The service's current build system (docs/service.md#builds), API key only.
 *
 * | method         | verb and path                                   | success | repeated after a drop |
 * |----------------|-------------------------------------------------|---------|-----------------------|
 * | request        | POST /v3/templates                              | 202     | no (a second build)   |
 * | fileUploadLink | GET /templates/{id}/files/{hash}                | 201     | yes                   |
 * | upload         | PUT <the link's presigned URL>                  | 2xx     | yes (same bytes)      |
 * | start          | POST /v2/templates/{id}/builds/{buildID}        | 202     | no (400 once started) |
 * | assignTags     | POST /templates/tags                            | 201     | yes (sets, not adds)  |
 * | removeTags     | DELETE /templates/tags                          | 204     | yes                   |
 * | tags           | GET /templates/{id}/tags                        | 200     | yes                   |
 *
 * Polling a build is the status call of v1 and v2 alike: Templates.waitForBuild.
 */
import { z } from "zod";
import { SandboxError } from "../errors";
import type { CallOptions, HttpClient } from "../transport/http";
import {
  AssignedTemplateTags,
  TemplateBuildFileUpload,
  TemplateRequestResponseV3,
  TemplateTag,
  type TemplateBuildRequestV3,
  type TemplateBuildStartV2,
} from "../schemas/builds";
import { FILES_HASH_RE } from "./files-hash";

const TemplateTags = z.array(TemplateTag);
/** The service's SDK gives an upload an hour. */
export const UPLOAD_TIMEOUT_MS = 3_600_000;

export class TemplateBuilds {
  constructor(private readonly http: HttpClient) {}

  /** Registers a waiting build of the template named `name` (reused when the team has one). */
  request(body: TemplateBuildRequestV3, call?: CallOptions): Promise<TemplateRequestResponseV3> {
    return this.http.call({ method: "POST", route: "/v3/templates", body, auth: "apiKey" }, TemplateRequestResponseV3, call);
  }

  /** Whether the files of one COPY step are cached, and the URL to upload them to. */
  fileUploadLink(templateID: string, hash: string, call?: CallOptions): Promise<TemplateBuildFileUpload> {
    if (!FILES_HASH_RE.test(hash)) {
      throw new SandboxError({ code: "invalid_argument", message: `files hash must be 64 lowercase hex characters, got ${JSON.stringify(hash)}` });
    }
    const op = { method: "GET", route: "/templates/{templateID}/files/{hash}", params: { templateID, hash }, auth: "apiKey" } as const;
    return this.http.call(op, TemplateBuildFileUpload, call);
  }

  /** PUTs one step's archive (contextArchive) to the link's URL, with its Content-Length. */
  async upload(url: string, archive: Uint8Array, call: CallOptions = {}): Promise<void> {
    const op = { method: "PUT", route: "(file upload URL)", url, bytes: { data: archive, contentType: "application/gzip" }, auth: "none" } as const;
    await this.http.exchange(op, { timeoutMs: UPLOAD_TIMEOUT_MS, ...call });
  }

  /** Starts a waiting build with its steps. @throws `invalid_argument` (400) once it has started. */
  start(templateID: string, buildID: string, body: TemplateBuildStartV2, call?: CallOptions): Promise<void> {
    const op = { method: "POST", route: "/v2/templates/{templateID}/builds/{buildID}", params: { templateID, buildID }, body, auth: "apiKey" } as const;
    return this.http.callVoid(op, call);
  }

  /** Points `tags` at the build `target` (`name:tag`, `name` alone meaning its `default`) names. */
  assignTags(target: string, tags: string[], call?: CallOptions): Promise<AssignedTemplateTags> {
    const op = { method: "POST", route: "/templates/tags", body: { target, tags }, auth: "apiKey", idempotent: true } as const;
    return this.http.call(op, AssignedTemplateTags, call);
  }

  /** Removes tags of the template `name`. @throws `invalid_argument` for the `default` tag. */
  removeTags(name: string, tags: string[], call?: CallOptions): Promise<void> {
    return this.http.callVoid({ method: "DELETE", route: "/templates/tags", body: { name, tags }, auth: "apiKey" }, call);
  }

  /** The template's tags and the builds they point at. */
  tags(templateID: string, call?: CallOptions): Promise<TemplateTag[]> {
    return this.http.call({ method: "GET", route: "/templates/{templateID}/tags", params: { templateID }, auth: "apiKey" }, TemplateTags, call);
  }
}
