// Pulumi dynamic provider for E2B-style sandboxes: Template, Volume, Sandbox and TemplateTag resources, with an embedded emulator of the service.
package sandbox
