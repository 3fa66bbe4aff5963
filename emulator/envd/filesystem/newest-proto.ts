/**
 * The `filesystem.Filesystem` service as the newest envd serves it: envd's own protos at infra
 * 54693ff (proto/, which test/contract/protos.test.ts holds to them) plus what the newest clients'
 * copy of the proto adds, `EntryInfo.is_symlink` (field 12, bool: PyPI e2b 2.63.0,
 * `e2b/envd/filesystem/filesystem_pb.py`; docs/service.md#filesystem-service). The emulator's envd
 * serves this descriptor, so proto/ and the project's sdk stay as envd's protos have them.
 */
import { clone, create, createFileRegistry, type DescFile } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  FileDescriptorProtoSchema,
  file_google_protobuf_timestamp,
} from "@bufbuild/protobuf/wkt";
import { file_filesystem_filesystem, type Filesystem } from "../../../sdk/gen/filesystem/filesystem_pb";

/** The fields the newest envd's EntryInfo has beyond envd's protos at infra 54693ff. */
export interface NewestEntryFields {
  /** True for a symlink itself, whose `type` and `mode` are those of its target. */
  isSymlink?: boolean;
}

function newestFile(): DescFile {
  const proto = clone(FileDescriptorProtoSchema, file_filesystem_filesystem.proto);
  const entry = proto.messageType.find((m) => m.name === "EntryInfo");
  if (!entry) throw new Error("filesystem.proto has no EntryInfo");
  entry.field.push(
    create(FieldDescriptorProtoSchema, {
      name: "is_symlink",
      number: 12,
      label: FieldDescriptorProto_Label.OPTIONAL,
      type: FieldDescriptorProto_Type.BOOL,
      jsonName: "isSymlink",
    }),
  );
  const imports: Record<string, DescFile> = { "google/protobuf/timestamp.proto": file_google_protobuf_timestamp };
  const registry = createFileRegistry(proto, (name) => imports[name]);
  const file = registry.getFile(proto.name);
  if (!file) throw new Error(`no file ${proto.name} in the registry`);
  return file;
}

/**
 * The service to route: the generated one's methods, whose EntryInfo also has `isSymlink`. Typed as
 * the generated service, so the implementation keeps its types (an entry may add NewestEntryFields).
 */
export const NewestFilesystem = newestFile().services.find((s) => s.typeName === "filesystem.Filesystem") as unknown as typeof Filesystem;
