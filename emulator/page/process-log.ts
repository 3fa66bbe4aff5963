/**
 * What the page knows of each sandbox's commands: every process envd's Start spawned (envd's
 * registry forgets a process 30 s after it ends and keeps none of its output), with the tail of its
 * output, and the last `FINISHED_KEPT` that ended. It is fed by envd's spawn observer
 * (../envd/process/registry.ts, `onSpawn`) and only listens: it reads the process's events as one
 * more attached stream, always drained, so it never holds a command back.
 */
import type { EndInfo } from "../envd/process/exit";
import type { ManagedProcess } from "../envd/process/managed";
import { OutputTail } from "./output-tail";

/** Commands that ended the page still shows per sandbox. */
export const FINISHED_KEPT = 20;

/** One command as the page knows it. */
export interface LoggedProcess {
  /** The sandbox's pid (the host's until envd learned it). */
  pid: number;
  cmd: string;
  args: string[];
  tag: string | undefined;
  /** As requested: empty means envd's default (the template's WORKDIR, else the user's home). */
  cwd: string;
  /** The request's environment: its values stay here, only its names leave (./process-view.ts). */
  envs: Record<string, string>;
  pty: boolean;
  startedAt: Date;
  end: EndInfo | undefined;
  endedAt: Date | undefined;
  output: OutputTail;
}

export class ProcessLog {
  private readonly bySandbox = new Map<string, LoggedProcess[]>();

  /** @param exists whether a sandbox is still known (running or paused); the others' commands are forgotten. */
  constructor(private readonly exists: (sandboxID: string) => boolean) {}

  /** envd's spawn observer: called in the tick the process was spawned, before any of its output. */
  readonly record = (sandboxID: string, proc: ManagedProcess): void => {
    this.forgetGone();
    const { cmd, args, envs } = proc.config;
    const cwd = proc.config.cwd ?? "";
    const entry: LoggedProcess = { pid: proc.pid, cmd, args: [...args], tag: proc.tag, cwd, envs: { ...envs }, pty: proc.isPty, startedAt: new Date(), end: undefined, endedAt: undefined, output: new OutputTail() };
    this.bySandbox.set(sandboxID, [...(this.bySandbox.get(sandboxID) ?? []), entry]);
    void proc.started.then(() => (entry.pid = proc.pid), () => undefined);
    void this.follow(sandboxID, proc, entry);
  };

  /** A sandbox's commands, newest first. */
  of(sandboxID: string): LoggedProcess[] {
    return [...(this.bySandbox.get(sandboxID) ?? [])].reverse();
  }

  /** Drops a sandbox's commands once it is gone (a kill); a paused one keeps them. */
  forgetIfGone(sandboxID: string): void {
    if (!this.exists(sandboxID)) this.bySandbox.delete(sandboxID);
  }

  private forgetGone(): void {
    for (const id of [...this.bySandbox.keys()]) this.forgetIfGone(id);
  }

  /** Reads the process's events until its end; `next` is awaited at once, so no backlog builds. */
  private async follow(sandboxID: string, proc: ManagedProcess, entry: LoggedProcess): Promise<void> {
    const sub = proc.subscribe();
    try {
      for (let update = await sub.next(); update; update = await sub.next()) {
        if (update.case === "data") entry.output.push(update.kind, update.data);
        else return this.ended(sandboxID, entry, update.end);
      }
    } finally {
      sub.close();
    }
  }

  private ended(sandboxID: string, entry: LoggedProcess, end: EndInfo): void {
    entry.end = end;
    entry.endedAt = new Date();
    const list = this.bySandbox.get(sandboxID);
    if (!list) return;
    const finished = list.filter((p) => p.end !== undefined);
    const drop = new Set(finished.slice(0, Math.max(0, finished.length - FINISHED_KEPT)));
    if (drop.size > 0) this.bySandbox.set(sandboxID, list.filter((p) => !drop.has(p)));
  }
}
