/**
 * The headers an upload URL of GET /templates/{id}/files/{hash} must be sent with (the answer's
 * `headers`, e2b 2.63: models/template_build_file_upload_headers.py). An object store's presigned URL
 * may be signed over request headers, and then refuses an upload whose signed header differs; the
 * emulator's URLs are signed over one header of its own, `x-emulator-upload-key`, with a value made
 * for each URL (docs/service.md#template-routes-of-the-newest-sdks). An upload without it is
 * accepted: clients older than the field (e2b 2.45, this project's sdk/template-build) do not send it.
 */
import { randomBytes } from "node:crypto";

/** The one header the emulator's upload URLs are signed over. */
export const UPLOAD_KEY_HEADER = "x-emulator-upload-key";

export class UploadHeaderStore {
  /** Upload token → the template it is for and the value its header must carry. */
  private readonly issued = new Map<string, { templateID: string; value: string }>();

  /** The headers to send with the upload of `token` (the last path segment of its URL). */
  issue(token: string, templateID: string): Record<string, string> {
    const value = randomBytes(16).toString("hex");
    this.issued.set(token, { templateID, value });
    return { [UPLOAD_KEY_HEADER]: value };
  }

  /** Whether an upload to `token` carrying `sent` (the header's value, if any) is to be refused. */
  mismatched(token: string, sent: string | undefined): boolean {
    const entry = this.issued.get(token);
    return sent !== undefined && entry !== undefined && sent !== entry.value;
  }

  /** Forgets the URLs of a deleted template. */
  dropTemplate(templateID: string): void {
    for (const [token, entry] of this.issued) if (entry.templateID === templateID) this.issued.delete(token);
  }
}
