// Compiler options of a strict NodeNext consumer project living outside the repo (scratch
// folders have no node_modules: node's types come from the repo's). Used by the build tests.
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

export const STRICT_CONSUMER_OPTIONS = {
  target: "ES2022",
  module: "NodeNext",
  moduleResolution: "NodeNext",
  lib: ["ES2023"],
  types: ["node"],
  typeRoots: [join(root, "node_modules/@types")],
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  skipLibCheck: false,
} as const;
