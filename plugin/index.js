"use strict";
// The plugin when Pulumi runs this folder (./PulumiPlugin.yaml): @pulumi/pulumi's run-plugin requires the
// folder and calls the function it exports, with the engine's arguments left in process.argv. The same
// server as ../bin/pulumi-resource-sandbox, which the engine runs directly; its code is compiled to
// ../dist by `npm run build`.
module.exports = () => require("../dist/provider/plugin/serve.js").serve(process.argv.slice(2));
