// serveStatic(): files of one directory under a path prefix, as a plugin for `app.register(...)`.
// It adds `GET` and `HEAD` `${prefix}/{*path}` (hidden from the OpenAPI document), so the app's
// layers (security headers, request ids, CORS, access log) run for files as for any route.
//
// - Paths never leave the root: see request-path.ts (what a request may name) and
//   static-root.ts (symlinks resolved, real path checked, no dotfiles by default). Every refusal
//   and every missing file is the same 404; malformed percent-encoding is a 400.
// - A directory is served through its index file: `/dir/` serves `dir/index.html`, `/dir`
//   (no slash) is redirected 301 to `/dir/` so the page's relative links resolve, and the bare
//   prefix (`/static`) is redirected to `/static/`. A directory without an index (or with
//   `index: false`) is a 404; no listings. A file asked for with a trailing slash is a 404.
// - Precompressed siblings (`app.js.br`, `app.js.gz`) are sent when Accept-Encoding accepts
//   them (the kernel's one Accept-Encoding parser, `selectEncoding`: the same choice compression()
//   makes; br before gzip on a tie; a missing sibling falls back to the other), with Content-Encoding, the original file's Content-Type, and
//   `Vary: Accept-Encoding` on every file reply while the option is on.
// - HTTP details (validators, 304, ranges, HEAD, streaming): file-reply.ts.
import { type App, context, type Context, redirect, type Reply, route, type RouteDefinition, type RouteMeta } from "../../index.js";
import { selectEncoding } from "../../plugin.js";
import { contentTypeFor } from "./content-types.js";
import { fileReply, type FileReplyOptions, type SelectedFile } from "./file-reply.js";
import { FILE_NOT_FOUND, isPlainName, requestedPath } from "./request-path.js";
import { StaticRoot, type OpenedFile } from "./static-root.js";

export interface StaticOptions {
  /** The directory to serve (resolved against the working directory; must exist at startup). */
  root: string;
  /** URL path the files are served under (default "/"): `/assets` serves `root/x.css` at `/assets/x.css`. */
  prefix?: string;
  /** File served for a directory (default "index.html"); false: directories are 404. */
  index?: string | false;
  /** `Cache-Control: public, max-age=<seconds>` (default 0: caches revalidate every time). */
  maxAge?: number;
  /** Add `immutable` to Cache-Control (for fingerprinted file names; default false). */
  immutable?: boolean;
  /** "deny" (default): names starting with "." are 404, wherever they are in the path; "allow": served. */
  dotfiles?: "deny" | "allow";
  /** Serve `file.br` / `file.gz` in place of `file` when the client accepts them (default true). */
  precompressed?: boolean;
}

/** Sibling suffix per coding. */
const SUFFIX = { br: ".br", gzip: ".gz" } as const;
type PrecompressedEncoding = keyof typeof SUFFIX;
/** The codings a sibling may have, in the server's order (br wins a tie). */
const PRECOMPRESSED: readonly PrecompressedEncoding[] = ["br", "gzip"];
/** What is left to try when the chosen coding's sibling is missing. */
const OTHER: { readonly [E in PrecompressedEncoding]: readonly PrecompressedEncoding[] } = { br: ["gzip"], gzip: ["br"] };

/**
 * The plugin that serves a directory under a prefix: GET and HEAD, ETags, 304, ranges,
 * precompressed siblings, no path out of the root.
 *
 * @example
 * app.register(serveStatic({ root: "public", prefix: "/assets", maxAge: 3600 }));
 *
 * @see docs/features/web.md
 */
export function serveStatic(options: StaticOptions): (app: App) => void {
  const settings = checkOptions(options);
  const root = new StaticRoot(settings.root, settings.dotfiles === "allow");
  const base = mountBase(settings.prefix);
  const replyOptions: FileReplyOptions = {
    cacheControl: `public, max-age=${settings.maxAge}` + (settings.immutable ? ", immutable" : ""),
    vary: settings.precompressed,
  };

  const serve = async (ctx: Context): Promise<Reply> => {
    // The router matched `${base}/{*path}` on the raw path, so the raw tail starts right after it.
    const requested = requestedPath(ctx.path.slice(base.length + 1), settings.dotfiles === "allow");
    let found = await root.locate(requested.segments);
    if (found === null) throw FILE_NOT_FOUND;
    if (found.kind === "directory") {
      if (settings.index === false) throw FILE_NOT_FOUND;
      const index = await root.locate([...requested.segments, settings.index]);
      if (index === null || index.kind !== "file") throw FILE_NOT_FOUND;
      if (!requested.trailingSlash) {
        await index.file.handle.close();
        return redirect(withQuery(ctx.path + "/", ctx.rawQuery), 301);
      }
      found = index;
    } else if (requested.trailingSlash) {
      await found.file.handle.close();
      throw FILE_NOT_FOUND;
    }
    const file = found.file;
    let selected: SelectedFile | null = null;
    try {
      if (settings.precompressed) selected = await precompressedSibling(root, file, ctx.header("accept-encoding"));
    } catch (err) {
      await file.handle.close();
      throw err;
    }
    return fileReply(ctx, selected ?? { file, contentType: contentTypeFor(file.path), encoding: null }, replyOptions);
  };

  const meta: RouteMeta = { hidden: true, summary: "Static files" };
  const pattern = `${base}/{*path}`;
  const routes: RouteDefinition[] = [route.get(pattern, meta, [context()], serve), route.head(pattern, meta, [context()], serve)];
  if (base !== "" && settings.index !== false) {
    const toSlash = (ctx: Context): Reply => redirect(withQuery(base + "/", ctx.rawQuery), 301);
    routes.push(route.get(base, meta, [context()], toSlash), route.head(base, meta, [context()], toSlash));
  }
  return (app) => {
    app.routes(routes);
  };
}

/** The best accepted precompressed sibling of `file`, opened (and `file` closed), or null. */
async function precompressedSibling(root: StaticRoot, file: OpenedFile, acceptEncoding: string | undefined): Promise<SelectedFile | null> {
  let offered = PRECOMPRESSED;
  for (let round = 0; round < 2; round++) {
    const encoding = selectEncoding(acceptEncoding, offered);
    if (encoding === null) return null;
    const sibling = await root.locateFile(file.path + SUFFIX[encoding]);
    if (sibling !== null) {
      await file.handle.close();
      return { file: sibling, contentType: contentTypeFor(file.path), encoding };
    }
    offered = OTHER[encoding];
  }
  return null;
}

function withQuery(path: string, rawQuery: string): string {
  return rawQuery === "" ? path : path + "?" + rawQuery;
}

/** "/" -> "", "/assets/" -> "/assets". Parameters and wildcards are refused: the prefix is literal. */
function mountBase(prefix: string): string {
  if (typeof prefix !== "string" || !prefix.startsWith("/")) throw new TypeError(`serveStatic: prefix must start with "/", got ${JSON.stringify(prefix)}`);
  if (/[{}:*?#]/.test(prefix)) throw new TypeError(`serveStatic: prefix ${JSON.stringify(prefix)} must be a literal path (no parameters or wildcards)`);
  return prefix.replace(/\/+$/, "");
}

type StaticSettings = Required<StaticOptions>;

function checkOptions(options: StaticOptions): StaticSettings {
  const s: StaticSettings = {
    root: options.root,
    prefix: options.prefix ?? "/",
    index: options.index ?? "index.html",
    maxAge: options.maxAge ?? 0,
    immutable: options.immutable ?? false,
    dotfiles: options.dotfiles ?? "deny",
    precompressed: options.precompressed ?? true,
  };
  if (!Number.isSafeInteger(s.maxAge) || s.maxAge < 0) throw new TypeError(`serveStatic: maxAge must be a whole number of seconds >= 0, got ${String(s.maxAge)}`);
  if (s.index !== false && (typeof s.index !== "string" || !isPlainName(s.index))) {
    throw new TypeError(`serveStatic: index must be a file name or false, got ${JSON.stringify(s.index)}`);
  }
  if (s.dotfiles !== "deny" && s.dotfiles !== "allow") throw new TypeError(`serveStatic: dotfiles must be "deny" or "allow", got ${JSON.stringify(s.dotfiles)}`);
  return s;
}
