/**
 * Sandbox snapshots area of the platform API (docs/service.md#sandbox-snapshots). Every call
 * authenticates with the API key. A snapshot is a template of its own kind: `POST /sandboxes` with
 * its `snapshotID` starts a sandbox from it, and it is deleted as a template.
 *
 * | method  | verb and path                              | success |
 * |---------|--------------------------------------------|---------|
 * | create  | POST /sandboxes/{id}/snapshots             | 201     |
 * | list    | GET /snapshots (X-Next-Token)              | 200     |
 * | delete  | DELETE /templates/{snapshotID}             | 204     |
 */
import { z } from "zod";
import { header, type CallOptions, type HttpClient } from "../transport/http";
import { SnapshotInfo, type NewSnapshot } from "../schemas/snapshots";

/** Filters and paging of {@link Snapshots.list}. */
export interface ListSnapshotsQuery {
  /** Only snapshots first taken of this sandbox. */
  sandboxID?: string;
  /** Only this snapshot: its ID or name (`name:tag` only that tag's build). Unknown: an empty list. */
  name?: string;
  /** Page size, 1–100; service default 100. */
  limit?: number;
  /** Token from a previous page. */
  nextToken?: string;
}

/** One page of {@link Snapshots.list}; `nextToken` is absent on the last page. */
export interface SnapshotPage {
  snapshots: SnapshotInfo[];
  nextToken?: string;
}

const SnapshotInfos = z.array(SnapshotInfo);

export class Snapshots {
  constructor(private readonly http: HttpClient) {}

  /**
   * Takes a snapshot of a running sandbox (it is paused briefly and resumed). Not repeated after a
   * dropped connection (it could take a second one). @throws `not_found` when no sandbox runs under `sandboxID`.
   */
  create(sandboxID: string, body: NewSnapshot = {}, call?: CallOptions): Promise<SnapshotInfo> {
    const op = { method: "POST", route: "/sandboxes/{id}/snapshots", params: { id: sandboxID }, body, auth: "apiKey" } as const;
    return this.http.call(op, SnapshotInfo, call);
  }

  /** One page of the team's snapshots, newest first. */
  async list(q: ListSnapshotsQuery = {}, call?: CallOptions): Promise<SnapshotPage> {
    const query = { sandboxID: q.sandboxID, name: q.name, limit: q.limit, nextToken: q.nextToken };
    const op = { method: "GET", route: "/snapshots", query, auth: "apiKey" } as const;
    const res = await this.http.exchange(op, call);
    const snapshots = this.http.parse(op, SnapshotInfos, res);
    const nextToken = header(res, "x-next-token");
    return nextToken ? { snapshots, nextToken } : { snapshots };
  }

  /**
   * Deletes a snapshot (all its builds), by its `snapshotID`, as the official SDK does.
   * @throws `not_found` when it is gone; `invalid_argument` while running sandboxes started from it exist.
   */
  delete(snapshotID: string, call?: CallOptions): Promise<void> {
    return this.http.callVoid({ method: "DELETE", route: "/templates/{id}", params: { id: snapshotID }, auth: "apiKey" }, call);
  }
}
