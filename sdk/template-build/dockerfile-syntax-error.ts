/** What BuildKit refuses to read in a Dockerfile (./dockerfile-syntax.ts), and what the conversion refuses (./dockerfile-convert.ts). */

/** An instruction's text or arguments BuildKit refuses, with its line when known. */
export class DockerfileSyntaxError extends Error {
  constructor(message: string, readonly line?: number) {
    super(message);
  }
}
