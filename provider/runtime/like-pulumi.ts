/**
 * A package as @pulumi/pulumi itself loads it. The engine's gRPC clients and servers come from
 * @pulumi/pulumi's own @grpc/grpc-js (and protobuf), and refuse credentials or messages built by
 * another copy, which a project may also have installed.
 */
import { dirname } from "node:path";

export function likePulumi<T>(id: string): T {
  return require(require.resolve(id, { paths: [dirname(require.resolve("@pulumi/pulumi/package.json"))] })) as T;
}
