/** The service's current build system: Dockerfile → steps, the files hash, the context archive, the calls. */
export { TemplateBuilds, UPLOAD_TIMEOUT_MS } from "./client";
export { runTemplateBuild, uploadMissing, withFilesHashes, type BuildOutcome, type BuildSpec, type UploadOutcome } from "./build";
export { listContextFiles, readDockerignore, type ContextEntry } from "./context-files";
export { contextArchive } from "./context-tar";
export { filesHash, hashEntries, FILES_HASH_RE } from "./files-hash";
export { dockerfileToSteps, DockerfileError, DOCKERFILE_READY_CMD, type DockerfileBuild, type DockerfileProblem } from "./dockerfile-steps";
