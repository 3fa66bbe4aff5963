/**
 * pulumi-sandbox: Pulumi resources for E2B-style sandboxes. The service's credentials come from stack
 * config (`sandbox:apiKey`, `sandbox:accessToken`, `sandbox:domain`, `sandbox:apiUrl`,
 * `sandbox:sandboxUrl`) or the env vars E2B_API_KEY, E2B_ACCESS_TOKEN, E2B_DOMAIN, E2B_API_URL,
 * E2B_SANDBOX_URL.
 */
// First: on a Node.js too old for the dependencies, fail here with the fix, not deep inside them.
import "../sdk/node-version";
export { Sandbox, Template, TemplateTag, Volume, type SandboxArgs, type TemplateArgs, type TemplateTagArgs, type VolumeArgs } from "./classes";
