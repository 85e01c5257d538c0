// Browser code of the docs page, part 2: loads `openapi.json` (beside the page), renders the
// operations grouped by tag with their parameters, bodies and responses, and a "Try it" form per
// operation that sends the request with fetch. Sets `data-ready` on <body> when done ("true") or
// failed ("error"), which the browser test reads.
export const DOCS_SCRIPT_UI = String.raw`
var METHODS = ["get", "post", "put", "patch", "delete", "head", "options", "trace"];

function specUrl() {
  var p = location.pathname;
  return (p.charAt(p.length - 1) === "/" ? p : p + "/") + "openapi.json";
}

/** Where requests go: the first server (relative to this page), or this origin. */
function apiBase() {
  var servers = Array.isArray(get(spec, "servers")) ? spec.servers : [];
  var url = servers.length > 0 && typeof get(servers[0], "url") === "string" ? servers[0].url : "/";
  try { return new URL(url, location.href).href.replace(/\/+$/, ""); } catch (e) { return location.origin; }
}

function anchor(prefix, name) { return prefix + String(name).replace(/[^A-Za-z0-9_-]/g, "_"); }

function paramRows(params) {
  var table = el("table", "params");
  var head = add(el("tr"), el("th", null, "Name"), el("th", null, "In"), el("th", null, "Type"), el("th", null, "Description"));
  add(table, add(el("thead"), head));
  var body = el("tbody");
  params.forEach(function (p) {
    var name = add(el("td"), el("code", null, p.name));
    if (p.required) add(name, el("span", "req", "required"));
    var type = el("td");
    add(type, el("span", "type", typeLabel(get(p, "schema"))));
    constraints(deref(get(p, "schema"))).forEach(function (c) { add(type, el("span", "constraint", c)); });
    add(body, add(el("tr"), name, el("td", "muted", p["in"]), type, el("td", "desc", get(p, "description") || "")));
  });
  return add(table, body);
}

function contentBlocks(content, openRefs) {
  var out = [];
  if (!isObj(content)) return out;
  Object.keys(content).forEach(function (type) {
    var media = content[type];
    out.push(el("div", "media", type));
    if (isObj(media) && own(media, "schema")) out.push(schemaNode(media.schema, 0, [], openRefs));
  });
  return out;
}

function responsesBlock(responses) {
  var box = el("div", "responses");
  Object.keys(responses || {}).forEach(function (status) {
    var r = deref(responses[status]);
    var row = el("div", "response");
    add(row, el("span", "status s" + status.charAt(0), status), el("span", null, get(r, "description") || ""));
    contentBlocks(get(r, "content"), Number(status) < 400).forEach(function (n) { add(row, n); });
    add(box, row);
  });
  return box;
}

function fillPath(path, fields) {
  var missing = [];
  var url = path.replace(/\{([^{}]+)\}/g, function (all, name) {
    var f = fields.filter(function (x) { return x.param["in"] === "path" && x.param.name === name; })[0];
    var v = f ? f.input.value : "";
    if (v === "") { missing.push(name); return all; }
    if (f.param["x-wildcard"] === true) return v.split("/").map(encodeURIComponent).join("/");
    return encodeURIComponent(v);
  });
  return { url: url, missing: missing };
}

function showResult(out, parts) {
  out.textContent = "";
  out.hidden = false;
  parts.forEach(function (p) { add(out, p); });
}

function send(method, path, fields, bodyArea, contentType, button, out) {
  var filled = fillPath(path, fields);
  if (filled.missing.length > 0) {
    showResult(out, [el("div", "error-box", "Fill in the path parameter(s): " + filled.missing.join(", "))]);
    return;
  }
  var query = new URLSearchParams();
  var headers = new Headers();
  try {
    fields.forEach(function (f) {
      var v = f.input.value;
      if (v === "") return;
      if (f.param["in"] === "query") query.append(f.param.name, v);
      else if (f.param["in"] === "header") headers.set(f.param.name, v);
    });
  } catch (e) {
    showResult(out, [el("div", "error-box", "Invalid header: " + e.message)]);
    return;
  }
  var init = { method: method.toUpperCase(), headers: headers };
  if (bodyArea && method !== "get" && method !== "head") {
    init.body = bodyArea.value;
    headers.set("content-type", contentType);
  }
  var qs = query.toString();
  var url = apiBase() + filled.url + (qs ? "?" + qs : "");
  var started = Date.now();
  button.disabled = true;
  showResult(out, [el("div", "muted", init.method + " " + url + " \u2026")]);
  fetch(url, init).then(function (res) {
    return res.text().then(function (text) {
      var lines = [];
      res.headers.forEach(function (value, name) { lines.push(name + ": " + value); });
      var pretty = text;
      try { if (text) pretty = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { pretty = text; }
      if (pretty.length > 200000) pretty = pretty.slice(0, 200000) + "\n\u2026 (truncated)";
      var status = add(el("div"), el("span", "status s" + String(res.status).charAt(0), String(res.status)),
        el("span", null, res.statusText + " \u00b7 " + (Date.now() - started) + " ms \u00b7 " + init.method + " " + url));
      showResult(out, [status, el("div", "sub-label", "Response headers"), el("pre", "resp-headers", lines.join("\n")),
        el("div", "sub-label", "Response body"), el("pre", "resp-body", pretty || "(empty)")]);
    });
  }).catch(function (err) {
    showResult(out, [el("div", "error-box", "Request failed: " + (err && err.message ? err.message : String(err)))]);
  }).then(function () { button.disabled = false; });
}

function tryItForm(path, method, op, params) {
  var form = el("form", "try");
  form.setAttribute("data-operation", op.operationId || "");
  add(form, el("h4", null, "Try it"));
  var fields = [];
  params.forEach(function (p) {
    if (p["in"] === "cookie") return;
    var row = el("label", "field");
    var label = add(el("span", "field-label", p.name), el("small", null, p["in"] + (p.required ? ", required" : "") + " \u00b7 " + typeLabel(get(p, "schema"))));
    var input = el("input");
    input.type = "text";
    input.name = p["in"] + ":" + p.name;
    input.autocomplete = "off";
    if (p["in"] === "path") {
      var ex = example(get(p, "schema"), 0, []);
      if (ex !== null && ex !== undefined) input.value = String(ex);
    }
    input.placeholder = typeLabel(get(p, "schema"));
    fields.push({ param: p, input: input });
    add(form, add(row, label, input));
  });
  var bodyArea = null, contentType = "";
  var rb = deref(get(op, "requestBody"));
  var content = get(rb, "content");
  if (isObj(content) && Object.keys(content).length > 0 && method !== "get" && method !== "head") {
    contentType = Object.keys(content)[0];
    var schema = get(content[contentType], "schema");
    bodyArea = el("textarea");
    bodyArea.name = "body";
    bodyArea.spellcheck = false;
    if (/json/i.test(contentType)) bodyArea.textContent = JSON.stringify(example(schema, 0, []), null, 2);
    else if (/^text\//i.test(contentType)) bodyArea.textContent = "Hello";
    add(form, add(el("label", "field"), add(el("span", "field-label", "Body"), el("small", null, contentType)), bodyArea));
  }
  var button = el("button", "send", "Send");
  button.type = "submit";
  var out = el("div", "result");
  out.hidden = true;
  add(form, add(el("div", "actions"), button), out);
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    send(method, path, fields, bodyArea, contentType, button, out);
  });
  return form;
}

function operationNode(path, method, op, pathItem) {
  var det = el("details", "op op-" + method);
  det.id = anchor("op-", (op.operationId || method + path));
  var searchText = [method, path, op.summary || "", op.operationId || ""].join(" ").toLowerCase();
  det.setAttribute("data-search", searchText);
  var summary = add(el("summary"), el("span", "method m-" + method, method.toUpperCase()), el("code", "path", path),
    el("span", "op-summary", op.summary || ""));
  if (op.deprecated === true) { det.className += " deprecated"; add(summary, el("span", "flag", "deprecated")); }
  add(det, summary);
  var body = el("div", "op-body");
  if (typeof op.description === "string") add(body, el("p", "op-desc", op.description));
  if (op.operationId) add(body, el("div", "meta-line", "operationId: " + op.operationId));
  if (Array.isArray(op.security) && op.security.length > 0) {
    var names = op.security.map(function (req) { return Object.keys(req || {}).join(" + ") || "none"; });
    add(body, el("div", "meta-line", "Security: " + names.join(" or ")));
  }
  var params = [].concat(Array.isArray(pathItem.parameters) ? pathItem.parameters : [], Array.isArray(op.parameters) ? op.parameters : []).map(deref).filter(isObj);
  if (params.length > 0) add(body, el("h4", null, "Parameters"), paramRows(params));
  var rb = deref(get(op, "requestBody"));
  if (isObj(rb)) {
    add(body, el("h4", null, "Request body" + (rb.required ? " (required)" : "")));
    contentBlocks(get(rb, "content"), true).forEach(function (n) { add(body, n); });
  }
  add(body, el("h4", null, "Responses"), responsesBlock(get(op, "responses")));
  add(body, tryItForm(path, method, op, params));
  return add(det, body);
}

function render(root) {
  var info = get(spec, "info") || {};
  document.title = (info.title || "API") + " \u00b7 API docs";
  var groups = {}, order = [];
  (Array.isArray(get(spec, "tags")) ? spec.tags : []).forEach(function (t) {
    if (isObj(t) && typeof t.name === "string" && !own(groups, t.name)) { groups[t.name] = { tag: t, ops: [] }; order.push(t.name); }
  });
  var paths = get(spec, "paths") || {};
  Object.keys(paths).forEach(function (path) {
    var item = paths[path];
    METHODS.forEach(function (m) {
      var op = get(item, m);
      if (!isObj(op)) return;
      var tags = Array.isArray(op.tags) && op.tags.length > 0 ? op.tags : ["other"];
      tags.forEach(function (t) {
        if (!own(groups, t)) { groups[t] = { tag: { name: t }, ops: [] }; order.push(t); }
        groups[t].ops.push({ path: path, method: m, op: op, item: item });
      });
    });
  });

  var nav = add(el("nav", "sidebar"), el("h2", null, "Tags"));
  var navList = add(nav, el("ul")).lastChild;
  var main = el("main");
  var header = add(el("header", "top"), el("h1", null, info.title || "API"));
  var badges = add(el("div", "badges"), el("span", "badge", "version " + (info.version || "?")), el("span", "badge", "OpenAPI " + (spec.openapi || "?")));
  var raw = el("a", "badge", "openapi.json");
  raw.href = specUrl();
  add(header, add(badges, raw));
  if (typeof info.description === "string") add(header, el("p", "api-desc", info.description));
  var filter = el("input", "filter");
  filter.type = "search";
  filter.placeholder = "Filter operations by path, method or summary";
  filter.setAttribute("aria-label", "Filter operations");
  add(main, add(header, filter));

  var sections = [];
  order.forEach(function (name) {
    var g = groups[name];
    if (g.ops.length === 0) return;
    var section = el("section", "tag-group");
    section.id = anchor("tag-", name);
    add(section, el("h2", null, name));
    if (typeof g.tag.description === "string") add(section, el("p", "tag-desc", g.tag.description));
    g.ops.forEach(function (o) { add(section, operationNode(o.path, o.method, o.op, o.item)); });
    add(main, section);
    sections.push(section);
    var link = add(el("a"), el("span", null, name), el("span", "count", String(g.ops.length)));
    link.href = "#" + section.id;
    add(navList, add(el("li"), link));
  });
  if (sections.length === 0) add(main, el("p", "muted", "This API declares no operations."));

  filter.addEventListener("input", function () {
    var q = filter.value.trim().toLowerCase();
    sections.forEach(function (section) {
      var visible = 0;
      Array.prototype.forEach.call(section.querySelectorAll("details.op"), function (d) {
        var hit = q === "" || d.getAttribute("data-search").indexOf(q) !== -1;
        d.hidden = !hit;
        if (hit) visible++;
      });
      section.hidden = visible === 0;
    });
  });

  root.textContent = "";
  add(root, add(el("div", "layout"), nav, main));
  openFromHash();
}

/** "#op-<operationId>" in the URL opens that operation (and opening one updates the URL). */
function openFromHash() {
  var id = "";
  try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { id = ""; }
  var target = id ? document.getElementById(id) : null;
  if (target && target.tagName === "DETAILS") { target.open = true; target.scrollIntoView(); }
  Array.prototype.forEach.call(document.querySelectorAll("details.op"), function (d) {
    d.addEventListener("toggle", function () { if (d.open && history.replaceState) history.replaceState(null, "", "#" + d.id); });
  });
}

function fail(root, message) {
  root.textContent = "";
  add(root, add(el("main"), el("h1", null, "API documentation"), el("p", "error-box", message)));
  document.body.setAttribute("data-ready", "error");
}

var root = document.getElementById("app");
fetch(specUrl(), { headers: { accept: "application/json" } }).then(function (res) {
  if (!res.ok) throw new Error("GET " + specUrl() + " answered " + res.status);
  return res.json();
}).then(function (doc) {
  if (!isObj(doc)) throw new Error("the OpenAPI document is not an object");
  spec = doc;
  render(root);
  document.body.setAttribute("data-ready", "true");
}).catch(function (err) {
  fail(root, "Could not load the OpenAPI document: " + (err && err.message ? err.message : String(err)));
});
`;
