/**
 * pulumi-sandbox: Pulumi resources for E2B-style sandboxes. The service's credentials come from stack
 * config (`sandbox:apiKey`, `sandbox:accessToken`, `sandbox:domain`, `sandbox:apiUrl`,
 * `sandbox:sandboxUrl`) or the env vars E2B_API_KEY, E2B_ACCESS_TOKEN, E2B_DOMAIN, E2B_API_URL,
 * E2B_SANDBOX_URL.
 */
// First: on a Node.js too old for the dependencies, fail here with the fix, not deep inside them.
import "../sdk/node-version";
// The classes, one per kind of the registry (generated from provider/kinds: scripts/gen-class-shapes.mjs).
export * from "./classes";
