// Template names are relative paths inside the templates directory ("pages/home"): no `..` or
// `.` segments, no empty segment, no absolute path or drive letter, no backslash, no NUL, so a
// name (even one built from request data) never reads a file outside the directory.
import { isAbsolute, resolve, sep } from "node:path";

const MAX_NAME_LENGTH = 512;

/** Why a name is refused, or null when it is a valid template name. */
export function checkTemplateName(name: unknown): string | null {
  if (typeof name !== "string" || name === "") return "is empty or not a string";
  if (name.length > MAX_NAME_LENGTH) return `is longer than ${MAX_NAME_LENGTH} characters`;
  if (name.includes("\0")) return "contains NUL";
  if (name.includes("\\")) return "contains a backslash";
  if (name.startsWith("/") || isAbsolute(name) || /^[A-Za-z]:/.test(name)) return "is absolute";
  for (const segment of name.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return "has an empty, . or .. segment";
  }
  return null;
}

/** The file of a template: `<dir>/<name><extension>` (the extension is added unless present). */
export function templateFile(dir: string, name: string, extension: string): string {
  const problem = checkTemplateName(name);
  if (problem !== null) throw new TypeError(`templates: the template name ${JSON.stringify(name)} ${problem}`);
  const root = resolve(dir);
  const file = resolve(root, name.endsWith(extension) ? name : name + extension);
  // Belt and braces: the checks above already keep the name inside the directory.
  if (!file.startsWith(root + sep)) throw new TypeError(`templates: the template name ${JSON.stringify(name)} leaves the templates directory`);
  return file;
}
