// A sandbox from the `base` template, provisioned by commands run inside it once it exists, in Go:
// the Go SDK generated from schema.json (sdks/go), served by the native plugin (bin/).
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"

	"github.com/pulumi-sandbox/pulumi-sandbox/sdks/go/sandbox"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		team := config.Get(ctx, "team")
		if team == "" {
			team = "platform"
		}
		box, err := sandbox.NewSandbox(ctx, "dev", &sandbox.SandboxArgs{
			TemplateID:     pulumi.String("base"),
			TimeoutSeconds: pulumi.Int(3600),
			Metadata:       pulumi.StringMap{"team": pulumi.String(team)},
			Provision: &sandbox.ProvisionArgs{
				Commands: sandbox.ProvisionCommandArray{
					&sandbox.ProvisionCommandArgs{Command: pulumi.String("mkdir -p ~/work && echo ready > ~/work/STATUS")},
					&sandbox.ProvisionCommandArgs{Command: pulumi.String("cat ~/work/STATUS")},
				},
			},
		})
		if err != nil {
			return err
		}
		ctx.Export("sandboxID", box.SandboxID)
		ctx.Export("provisioned", box.Provisioned)
		return nil
	})
}
