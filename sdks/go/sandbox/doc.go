// Pulumi provider for E2B-style sandboxes: a resource for each kind of the service's objects, with an embedded emulator of the service.
package sandbox
