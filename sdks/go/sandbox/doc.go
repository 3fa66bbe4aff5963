// Pulumi dynamic provider for E2B-style sandboxes: Template, Volume and Sandbox resources, with an embedded emulator of the service.
package sandbox
