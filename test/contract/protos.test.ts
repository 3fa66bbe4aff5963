/**
 * Our proto/ (as compiled into sdk/gen, which gen-drift.test.ts ties to proto/) matches envd's own
 * .proto files (test/contract/envd-protos.contract.json, scripts/gen-envd-contract.mjs) field for
 * field: every service and method with its streaming, every message with its fields' names,
 * numbers, types, labels, oneofs and proto3 optionals, every enum with its values.
 */
import { toJson, type DescFile } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { file_filesystem_filesystem } from "../../sdk/gen/filesystem/filesystem_pb";
import { file_process_process } from "../../sdk/gen/process/process_pb";

type Json = Record<string, unknown> & { name?: string };
interface ProtoContract {
  source: { repo: string; commit: string };
  files: Json[];
}

const contract = JSON.parse(readFileSync(join(__dirname, "envd-protos.contract.json"), "utf8")) as ProtoContract;
const ours: Record<string, DescFile> = {
  "process/process.proto": file_process_process,
  "filesystem/filesystem.proto": file_filesystem_filesystem,
};

/** One line per wire-relevant item, keyed by full name, so a mismatch reads as a line that differs. */
function wireLines(file: Json): string[] {
  const pkg = String(file.package ?? "");
  const lines: string[] = [];
  const list = (v: unknown) => (Array.isArray(v) ? (v as Json[]) : []);
  const enums = (items: unknown, scope: string) => {
    for (const e of list(items)) lines.push(`enum ${scope}.${e.name} ${list(e.value).map((v) => `${v.name}=${Number(v.number ?? 0)}`).join(",")}`);
  };
  const messages = (items: unknown, scope: string) => {
    for (const m of list(items)) {
      const name = `${scope}.${m.name}`;
      const oneofs = list(m.oneofDecl).map((o) => o.name);
      lines.push(`message ${name}`);
      for (const f of list(m.field)) {
        const oneof = f.oneofIndex === undefined ? "" : ` oneof=${oneofs[Number(f.oneofIndex)]}`;
        lines.push(`  ${name}.${f.name} = ${f.number} ${f.label} ${f.type}${f.typeName ? ` ${f.typeName}` : ""}${oneof}${f.proto3Optional ? " optional" : ""}`);
      }
      messages(m.nestedType, name);
      enums(m.enumType, name);
    }
  };
  messages(file.messageType, pkg);
  enums(file.enumType, pkg);
  for (const s of list(file.service)) {
    for (const m of list(s.method)) {
      lines.push(`rpc ${pkg}.${s.name}/${m.name}(${m.clientStreaming ? "stream " : ""}${m.inputType}) → ${m.serverStreaming ? "stream " : ""}${m.outputType}`);
    }
  }
  return lines.sort();
}

describe(`proto/ matches envd's protos (${contract.source.repo}@${contract.source.commit.slice(0, 12)})`, () => {
  test("the same files", () => {
    expect(Object.keys(ours).sort()).toEqual(contract.files.map((f) => f.name).sort());
  });

  test.each(contract.files.map((f) => [f.name!, f] as const))("%s, field for field", (name, theirs) => {
    const mine = toJson(FileDescriptorProtoSchema, ours[name]!.proto) as Json;
    expect(wireLines(theirs).length).toBeGreaterThan(40);
    expect(wireLines(mine)).toEqual(wireLines(theirs));
  });

  test("a changed field number is a difference", () => {
    const theirs = contract.files.find((f) => f.name === "process/process.proto")!;
    const changed = JSON.parse(JSON.stringify(theirs)) as { messageType: { field?: { number: number }[] }[] };
    const field = changed.messageType.find((m) => m.field?.length)!.field![0]!;
    field.number += 100;
    expect(wireLines(changed as unknown as Json)).not.toEqual(wireLines(theirs));
  });
});
