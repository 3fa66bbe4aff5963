"""Reproducible team environments, in Python: one template, made public so other teams can use it too,
and one sandbox per member from it, each with its own metadata and env vars and a welcome file. The
same stack as examples/team-environments (TypeScript), through the native plugin and the Python SDK
generated from schema.json (sdks/python)."""
import pulumi
import pulumi_sandbox as sandbox

config = pulumi.Config()
members = config.get_object("members") or ["ada", "grace", "linus"]
team = config.get("team") or "platform"
# Whether other teams may use the template: changed in place (one PATCH), never by a rebuild.
public = config.get_bool("public")
public = True if public is None else public
shared_token = config.get_secret("sharedToken") or pulumi.Output.secret("team-shared-token-8a7e3f")

template = sandbox.Template(
    "team-env",
    dockerfile="\n".join(["FROM e2bdev/base:latest", "ENV EDITOR=vim", "WORKDIR /home/user"]),
    start_cmd="echo ready",
    public=public,
)

sandboxes = {
    member: sandbox.Sandbox(
        f"env-{member}",
        template_id=template.template_id,
        timeout_seconds=8 * 3600,
        metadata={"team": team, "owner": member},
        env_vars={"OWNER": member, "TEAM_TOKEN": shared_token},
        provision=sandbox.ProvisionArgs(
            commands=[sandbox.ProvisionCommandArgs(command=f'echo "workspace of {member} ({team})" > ~/WELCOME && cat ~/WELCOME')],
        ),
    )
    for member in members
}

pulumi.export("templateID", template.template_id)
pulumi.export("templateNames", template.names)
pulumi.export("environments", {member: box.sandbox_id for member, box in sandboxes.items()})
