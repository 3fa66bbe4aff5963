// Worker of bench 6: one template, two builds, the second after one context file changed; prints the
// time and the bytes uploaded of each build. `mode`:
//   ours        the provider's runtime, as `pulumi up` runs it: check (the Dockerfile → steps and the
//               files hashes), then create, then check and update; only archives the service lacks go up
//   everything  the same builds through the sdk, every COPY step's archive uploaded every time (what a
//               client without the files cache sends)
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const { service, contextDir, dockerfile, changed, mode, alias } = JSON.parse(process.argv[2]);
const config = { "sandbox:apiKey": service.apiKey, "sandbox:apiUrl": service.apiUrl, "sandbox:sandboxUrl": service.sandboxUrl };

/** Bytes the runtime reports uploading ("... (N bytes); the service had the others"), read off its log on stderr. */
let logged = 0;
const write = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) => {
  for (const m of String(chunk).matchAll(/\((\d+) bytes\); the service had the others/g)) logged += Number(m[1]);
  return write(chunk, ...rest);
};

async function ours() {
  const runtime = require("pulumi-sandbox/runtime");
  runtime.configure({ config: { get: (k) => config[k] } });
  const args = { dockerfile, context: contextDir, alias, __provider: "bench" };
  const build = async (run) => {
    logged = 0;
    const t0 = performance.now();
    const out = await run();
    return { ms: performance.now() - t0, bytes: logged, out };
  };
  const first = await build(async () => {
    const { inputs } = await runtime.check("Template", {}, args);
    return runtime.create("Template", inputs);
  });
  writeFileSync(join(contextDir, changed), `changed at ${Date.now()}\n`);
  const second = await build(async () => {
    const { inputs } = await runtime.check("Template", first.out.outs, args);
    return runtime.update("Template", first.out.id, first.out.outs, inputs);
  });
  await runtime.remove("Template", first.out.id, second.out.outs);
  return { first, second };
}

async function everything() {
  const { PlatformClient, dockerfileToSteps, withFilesHashes, listContextFiles, contextArchive, readDockerignore } = require("pulumi-sandbox/sdk");
  const client = new PlatformClient({ apiKey: service.apiKey, apiUrl: service.apiUrl });
  const build = async () => {
    const t0 = performance.now();
    const plan = dockerfileToSteps(dockerfile);
    const steps = withFilesHashes(plan.steps, contextDir);
    const { templateID, buildID } = await client.builds.request({ name: alias });
    let bytes = 0;
    for (const step of steps.filter((s) => s.filesHash)) {
      const link = await client.builds.fileUploadLink(templateID, step.filesHash);
      const archive = contextArchive(listContextFiles(step.args[0], contextDir, readDockerignore(contextDir)));
      await client.builds.upload(link.url, archive);
      bytes += archive.length;
    }
    await client.builds.start(templateID, buildID, { fromImage: plan.fromImage, steps });
    await client.templates.waitForBuild(templateID, buildID);
    return { ms: performance.now() - t0, bytes, templateID };
  };
  const first = await build();
  writeFileSync(join(contextDir, changed), `changed at ${Date.now()}\n`);
  const second = await build();
  await client.templates.delete(first.templateID);
  await client.close();
  return { first, second };
}

const result = mode === "ours" ? await ours() : await everything();
console.log(JSON.stringify({ first: { ms: result.first.ms, bytes: result.first.bytes }, second: { ms: result.second.ms, bytes: result.second.bytes } }));
