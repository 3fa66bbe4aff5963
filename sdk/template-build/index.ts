/** The service's current build system: Dockerfile → steps, the files hash, the context archive, the calls. */
export { TemplateBuilds, UPLOAD_TIMEOUT_MS } from "./client";
export { planFiles, uploadMissing, withFilesHashes, type PlannedFiles, type UploadOutcome } from "./build";
export { changedEntry, copyFiles, filesHash, type ChangedEntry, type CopyFiles } from "./copy-files";
export { IgnorePatternError, listContextFiles, readDockerignore, type ContextEntry } from "./context-files";
export { PatternMatcher } from "./dockerignore";
export { contextArchive } from "./context-tar";
export { hashEntries, FILES_HASH_RE } from "./files-hash";
export { astToSteps, dockerfileToSteps, DockerfileError, DOCKERFILE_READY_CMD, type DockerfileBuild, type DockerfileProblem } from "./dockerfile-steps";
export { parseDockerfileAst, type DockerfileAst, type DockerfileHeredoc, type DockerfileInstruction } from "./dockerfile-syntax";
