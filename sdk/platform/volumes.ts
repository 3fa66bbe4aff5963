/**
 * Volumes area of the platform API (a private beta of the real service). Every call
 * authenticates with the API key (`X-API-Key`, env `E2B_API_KEY`).
 *
 * | method | verb and path           | success |
 * |--------|-------------------------|---------|
 * | create | POST /volumes           | 201     |
 * | get    | GET /volumes/{id}       | 200     |
 * | list   | GET /volumes            | 200     |
 * | delete | DELETE /volumes/{id}    | 204     |
 *
 * A volume's files are reached through its content API (./volume-content.ts, `content(volume)`).
 */
import { z } from "zod";
import type { CallOptions, HttpClient } from "../transport/http";
import { Volume, VolumeAndToken, type NewVolume } from "../schemas/volumes";
import { VolumeContent } from "../volume-content/client";

const Volumes_ = z.array(Volume);

export class Volumes {
  constructor(private readonly http: HttpClient) {}

  /**
   * Creates a volume. Names match `^[a-zA-Z0-9_-]+$` and are unique per team (a duplicate is a 400
   * `invalid_argument`). Never repeated after a dropped connection.
   */
  create(body: NewVolume, call?: CallOptions): Promise<VolumeAndToken> {
    return this.http.call({ method: "POST", route: "/volumes", body: { name: body.name }, auth: "apiKey" }, VolumeAndToken, call);
  }

  /** A volume with a freshly minted content token. @throws `not_found`; `invalid_argument` for a non-UUID ID. */
  get(id: string, call?: CallOptions): Promise<VolumeAndToken> {
    return this.http.call({ method: "GET", route: "/volumes/{id}", params: { id }, auth: "apiKey" }, VolumeAndToken, call);
  }

  /** The team's volumes. */
  list(call?: CallOptions): Promise<Volume[]> {
    return this.http.call({ method: "GET", route: "/volumes", auth: "apiKey" }, Volumes_, call);
  }

  /**
   * A client of the volume's files, authenticated with the token `volume` carries (from `create` or
   * `get`; a token expires, so take a fresh `get` for long work). Close it when done.
   */
  content(volume: Pick<VolumeAndToken, "volumeID" | "token" | "domain">): VolumeContent {
    return new VolumeContent(this.http.options, volume);
  }

  /** Deletes a volume; the service does not check whether a sandbox still mounts it. */
  delete(id: string, call?: CallOptions): Promise<void> {
    return this.http.callVoid({ method: "DELETE", route: "/volumes/{id}", params: { id }, auth: "apiKey" }, call);
  }
}
