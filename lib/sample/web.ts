// The sample's web pages: `GET /` renders the user table as an HTML page (keel/web's markup``
// tag escapes every value), styled by `/static/keel.css`, which serveStatic serves from the
// folder shipped beside this file (lib/sample/public; the build copies it to dist/public).
import { fileURLToPath } from "node:url";
import { html, route, t } from "../index.js";
import { markup, serveStatic, type SafeHtml } from "../web/index.js";
import type { UserRecord, UserTable } from "./users.js";

/** Users shown on the home page; the full table is at GET /api/v1/users, a page at a time. */
export const HOME_PAGE_USERS = 100;

/** The folder of static files: next to this module, in the sources and in the bundle alike. */
export const PUBLIC_DIR = fileURLToPath(new URL("./public/", import.meta.url));

function layout(title: string, body: SafeHtml): SafeHtml {
  return markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/static/keel.css">
</head>
<body><main>${body}</main></body>
</html>
`;
}

function usersTable(users: readonly UserRecord[], total: number): SafeHtml {
  return markup`<h1>Users</h1>
<p class="lead">${total} users in the sample's table${total > users.length ? markup`, the first ${users.length} shown` : ""}.</p>
<table>
<thead><tr><th>id</th><th>email</th></tr></thead>
<tbody>
${users.map((u) => markup`<tr><td>${u.id}</td><td><a href="${`/users/${u.id}`}">${u.email}</a></td></tr>\n`)}</tbody>
</table>
<footer>The API is described at <a href="/docs">/docs</a>.</footer>`;
}

/** `GET /`: the users as an HTML page. */
export function homePage(users: UserTable) {
  return route.get(
    "/",
    { tag: "web", summary: "The home page: the users as an HTML table", responses: { 200: { description: "An HTML page", contentType: "text/html", schema: t.string() } } },
    [],
    async () => {
      const [first, total] = await Promise.all([users.pageAfter(0, HOME_PAGE_USERS), users.count()]);
      return html(layout("keel sample service", usersTable(first, total)));
    },
  );
}

/** `/static/*`: the files of PUBLIC_DIR, cached for an hour. */
export function staticFiles() {
  return serveStatic({ root: PUBLIC_DIR, prefix: "/static", maxAge: 3600 });
}
