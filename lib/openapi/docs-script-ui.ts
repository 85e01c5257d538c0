// Browser code of the docs page, part 2: loads `openapi.json` (beside the page), renders the
// operations grouped by tag with their parameters, bodies and responses, an "Authorize" panel for
// the document's security schemes (values kept in memory only), and a "Try it" form per operation
// that sends the request with fetch and shows it as a copyable curl command. A multipart/form-data
// body gets one input per schema property (file inputs for binary ones) and is sent as FormData; a
// text/event-stream answer is read as it arrives, event by event, until the Stop button aborts it.
// Sets `data-ready` on <body> when done ("true") or failed ("error"), and `data-status` (and
// `data-stream` for an event stream) on a form's result, which the browser tests read.
export const DOCS_SCRIPT_UI = String.raw`
var METHODS = ["get", "post", "put", "patch", "delete", "head", "options", "trace", "query"];

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

/* ---- Credentials: the "Authorize" panel. Values live in this page's memory only. ---- */

var credentials = Object.create(null);   // scheme name -> { token | user, password | key }
var credentialListeners = [];

function securitySchemes() {
  var s = get(get(spec, "components"), "securitySchemes");
  return isObj(s) ? s : {};
}

/** How the panel handles a scheme: "bearer", "basic", "apiKey", or "unsupported". */
function schemeKind(s) {
  var type = get(s, "type");
  if (type === "http") {
    var scheme = String(get(s, "scheme") || "").toLowerCase();
    return scheme === "bearer" || scheme === "basic" ? scheme : "unsupported";
  }
  if (type === "apiKey") {
    var where = get(s, "in");
    return typeof get(s, "name") === "string" && (where === "header" || where === "query" || where === "cookie") ? "apiKey" : "unsupported";
  }
  // An OAuth 2 / OpenID Connect access token is pasted by hand and sent as a bearer token.
  if (type === "oauth2" || type === "openIdConnect") return "bearer";
  return "unsupported";
}

function schemeLabel(s) {
  var type = String(get(s, "type") || "?");
  if (type === "http") return "HTTP " + String(get(s, "scheme") || "?") + (typeof get(s, "bearerFormat") === "string" ? " (" + s.bearerFormat + ")" : "");
  if (type === "apiKey") return "API key in " + String(get(s, "in") || "?") + " " + String(get(s, "name") || "?");
  return type;
}

function base64Utf8(text) {
  var bytes = new TextEncoder().encode(text);
  var binary = "";
  for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary);
}

/** What a scheme adds to a request, or null when no value was entered for it. */
function schemeCredentials(name) {
  var s = deref(get(securitySchemes(), name));
  var v = get(credentials, name);
  if (!isObj(s) || !isObj(v)) return null;
  var out = { headers: [], query: [], cookies: [] };
  var kind = schemeKind(s);
  if (kind === "bearer") {
    if (!v.token) return null;
    out.headers.push(["authorization", "Bearer " + v.token]);
  } else if (kind === "basic") {
    if (!v.user && !v.password) return null;
    out.headers.push(["authorization", "Basic " + base64Utf8((v.user || "") + ":" + (v.password || ""))]);
  } else if (kind === "apiKey") {
    if (!v.key) return null;
    out[s["in"] === "header" ? "headers" : s["in"] === "query" ? "query" : "cookies"].push([s.name, v.key]);
  } else {
    return null;
  }
  return out;
}

/** The security requirements that apply to an operation: its own, else the document's. */
function operationSecurity(op) {
  if (Array.isArray(get(op, "security"))) return op.security;
  if (Array.isArray(get(spec, "security"))) return spec.security;
  return [];
}

/**
 * The credentials "Try it" sends for an operation: those of the first requirement (alternative)
 * whose schemes all have values. With none satisfied, nothing is sent and the note says why.
 */
function chooseCredentials(requirements) {
  var none = { headers: [], query: [], cookies: [] };
  if (requirements.length === 0) return { creds: none, note: "Sends no credentials: the operation requires none.", warn: false };
  var anonymous = false, wanted = [];
  for (var i = 0; i < requirements.length; i++) {
    var names = isObj(requirements[i]) ? Object.keys(requirements[i]) : [];
    if (names.length === 0) { anonymous = true; continue; }
    wanted.push(names.join(" + "));
    var parts = names.map(schemeCredentials);
    if (parts.every(function (p) { return p !== null; })) {
      var merged = { headers: [], query: [], cookies: [] };
      parts.forEach(function (p) { ["headers", "query", "cookies"].forEach(function (k) { merged[k] = merged[k].concat(p[k]); }); });
      var note = "Sends the credentials of " + names.join(" + ") + " (from Authorize).";
      if (merged.cookies.length > 0) note += " A cookie cannot be set by the browser's fetch: it appears only in the curl command.";
      return { creds: merged, note: note, warn: false };
    }
  }
  if (anonymous) return { creds: none, note: "Sends no credentials (anonymous access is allowed; Authorize " + wanted.join(" or ") + " to send some).", warn: false };
  return { creds: none, note: "Not authorized: this operation needs " + wanted.join(" or ") + ". Enter it under Authorize above.", warn: true };
}

function credentialsChanged() { credentialListeners.forEach(function (f) { f(); }); }

function authorizePanel() {
  var schemes = securitySchemes();
  var names = Object.keys(schemes);
  if (names.length === 0) return null;
  var panel = el("details", "authorize");
  var state = el("span", "auth-state");
  add(panel, add(el("summary"), el("span", "authorize-title", "Authorize"), state));
  add(panel, el("p", "muted", "Credentials entered here stay in this page's memory only (never stored; gone on reload). \u201cTry it\u201d sends those its operation's security requirements name."));
  var updateState = function () {
    var set = names.filter(function (n) { return schemeCredentials(n) !== null; }).length;
    state.textContent = set + " of " + names.length + " set";
    state.className = "auth-state" + (set > 0 ? " on" : "");
  };
  names.forEach(function (name) {
    var s = deref(schemes[name]);
    var box = el("div", "scheme");
    box.setAttribute("data-scheme", name);
    add(box, add(el("div", "scheme-head"), el("code", "scheme-name", name), el("span", "badge", schemeLabel(s))));
    if (typeof get(s, "description") === "string") add(box, el("div", "desc", s.description));
    var kind = schemeKind(s);
    var values = Object.create(null);
    credentials[name] = values;
    var field = function (key, label, type) {
      var input = el("input");
      input.type = type;
      input.name = "auth:" + name + ":" + key;
      input.autocomplete = "off";
      input.spellcheck = false;
      input.addEventListener("input", function () { values[key] = input.value; updateState(); credentialsChanged(); });
      add(box, add(el("label", "field"), el("span", "field-label", label), input));
      return input;
    };
    if (kind === "bearer") {
      field("token", get(s, "type") === "http" ? "Token" : "Access token", "text").placeholder = "sent as Authorization: Bearer \u2026";
      if (get(s, "type") !== "http") add(box, el("div", "meta-line", "Obtain the token yourself; it is sent as a bearer token."));
    } else if (kind === "basic") {
      field("user", "User", "text");
      field("password", "Password", "password");
    } else if (kind === "apiKey") {
      field("key", "Value", "text").placeholder = s["in"] + " " + s.name;
      if (s["in"] === "cookie") add(box, el("div", "meta-line warn", "A browser's fetch cannot set a cookie: this value appears only in the curl command (the browser still sends its own cookies for this site)."));
    } else {
      add(box, el("div", "meta-line warn", "This kind of scheme cannot be filled in here."));
    }
    add(panel, box);
  });
  var clear = el("button", "plain", "Clear all");
  clear.type = "button";
  clear.addEventListener("click", function () {
    Array.prototype.forEach.call(panel.querySelectorAll("input"), function (i) {
      i.value = "";
      i.dispatchEvent(new Event("input"));
    });
  });
  add(panel, add(el("div", "actions"), clear));
  updateState();
  return panel;
}

/* ---- Requests: what "Try it" sends, and the same request as a curl command. ---- */

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

/** The request a form describes: method, absolute URL, header and cookie pairs, body. */
function buildRequest(form) {
  var filled = fillPath(form.path, form.fields);
  var auth = chooseCredentials(operationSecurity(form.op));
  var query = new URLSearchParams();
  var headers = [], cookies = [];
  form.fields.forEach(function (f) {
    var v = f.input.value;
    if (v === "") return;
    var where = f.param["in"];
    if (where === "query") query.append(f.param.name, v);
    else if (where === "header") headers.push([f.param.name, v]);
    else if (where === "cookie") cookies.push([f.param.name, v]);
  });
  auth.creds.query.forEach(function (p) { query.append(p[0], p[1]); });
  // A credential replaces a parameter of the same header name (e.g. a declared Authorization).
  auth.creds.headers.forEach(function (c) {
    headers = headers.filter(function (h) { return h[0].toLowerCase() !== c[0].toLowerCase(); }).concat([c]);
  });
  cookies = cookies.concat(auth.creds.cookies);
  var body = null, parts = null;
  if (form.bodyArea && form.method !== "get" && form.method !== "head") {
    body = form.bodyArea.value;
    headers.push(["content-type", form.contentType]);
  } else if (form.parts && form.method !== "get" && form.method !== "head") {
    // No content-type header: the browser (and curl -F) writes it with the boundary it chose.
    parts = formParts(form.parts);
  }
  var qs = query.toString();
  return {
    method: form.method.toUpperCase(), url: apiBase() + filled.url + (qs ? "?" + qs : ""), missing: filled.missing,
    headers: headers, cookies: cookies, body: body, parts: parts, auth: auth,
  };
}

/* ---- multipart/form-data: one input per property of the body's schema. ---- */

function isFileSchema(s) {
  s = deref(s);
  return isObj(s) && (get(s, "format") === "binary" || get(s, "contentEncoding") === "binary" || typeof get(s, "contentMediaType") === "string");
}

/** The properties of an object schema (its allOf parts merged) and the names it requires. */
function formProperties(schema) {
  var s = deref(schema);
  var props = [], required = [];
  (Array.isArray(get(s, "allOf")) ? s.allOf.concat([s]) : [s]).forEach(function (part) {
    var p = deref(part);
    if (Array.isArray(get(p, "required"))) required = required.concat(p.required);
    var named = get(p, "properties");
    if (!isObj(named)) return;
    Object.keys(named).forEach(function (name) {
      if (props.every(function (x) { return x.name !== name; })) props.push({ name: name, schema: named[name] });
    });
  });
  return props.map(function (p) {
    var s2 = deref(p.schema);
    var items = get(s2, "items");
    var kind = isFileSchema(s2) ? "file" : get(s2, "type") === "array" && isFileSchema(items) ? "files" : get(s2, "type") === "array" ? "list" : "text";
    return { name: p.name, schema: p.schema, kind: kind, required: required.indexOf(p.name) !== -1 };
  });
}

function partInput(p) {
  var input;
  var options = p.kind === "text" ? choices(p.schema) : null;
  if (p.kind === "file" || p.kind === "files") {
    input = el("input");
    input.type = "file";
    if (p.kind === "files") input.multiple = true;
    var media = get(deref(p.kind === "files" ? get(deref(p.schema), "items") : p.schema), "contentMediaType");
    if (typeof media === "string" && /^[\w.+-]+\/[\w.+*-]+$/.test(media) && media !== "application/octet-stream") input.accept = media;
  } else if (options !== null) {
    input = el("select");
    if (!p.required) { var empty = el("option", null, "\u2014"); empty.value = ""; add(input, empty); }
    options.forEach(function (o) { var opt = el("option", null, o); opt.value = o; add(input, opt); });
  } else {
    input = el("input");
    input.type = "text";
    input.autocomplete = "off";
    input.spellcheck = false;
    input.placeholder = p.kind === "list" ? "comma-separated: one part each" : typeLabel(p.schema);
  }
  input.name = "part:" + p.name;
  return input;
}

/** The parts a form sends, in order: [name, text] or [name, File]; empty fields are left out. */
function formParts(fields) {
  var out = [];
  fields.forEach(function (f) {
    if (f.part.kind === "file" || f.part.kind === "files") {
      Array.prototype.forEach.call(f.input.files || [], function (file) { out.push([f.part.name, file]); });
      return;
    }
    var v = f.input.value;
    if (v === "") return;
    if (f.part.kind === "list") v.split(",").forEach(function (x) { x = x.trim(); if (x !== "") out.push([f.part.name, x]); });
    else out.push([f.part.name, v]);
  });
  return out;
}

/** A file name for curl's -F name=@file: quoted when curl would read ; , or " in it as syntax. */
function curlFileName(name) {
  return /[;,"\\]/.test(name) ? '"' + name.replace(/["\\]/g, "\\$&") + '"' : name;
}

function curlPart(part) {
  var name = part[0], value = part[1];
  if (typeof value !== "string") return "-F " + shellQuote(name + "=@" + curlFileName(value.name || "file"));
  // curl -F reads a leading @ or < as a file, a leading " as quoting and ;type= as a header:
  // --form-string sends such a value as it is.
  if (/^[@<"]/.test(value) || value.indexOf(";") !== -1) return "--form-string " + shellQuote(name + "=" + value);
  return "-F " + shellQuote(name + "=" + value);
}

/** POSIX shell single quoting: 'it'\''s'. */
function shellQuote(text) { return "'" + String(text).replace(/'/g, "'\\''") + "'"; }

function curlCommand(req) {
  var first = "curl " + (req.method === "HEAD" ? "--head " : req.method !== "GET" ? "-X " + req.method + " " : "") + shellQuote(req.url);
  var parts = [first];
  req.headers.forEach(function (h) { parts.push("-H " + shellQuote(h[0] + ": " + h[1])); });
  if (req.cookies.length > 0) parts.push("-b " + shellQuote(req.cookies.map(function (c) { return c[0] + "=" + c[1]; }).join("; ")));
  if (req.body !== null) parts.push("--data-raw " + shellQuote(req.body));
  if (req.parts !== null) req.parts.forEach(function (p) { parts.push(curlPart(p)); });
  return parts.join(" \\\n  ");
}

function copyText(text, pre, status) {
  var done = function (ok) { status.textContent = ok ? "Copied" : "Select the command and copy it"; };
  if (navigator.clipboard && typeof navigator.clipboard.writeText === "function") {
    navigator.clipboard.writeText(text).then(function () { done(true); }, function () { selectText(pre); done(false); });
  } else {
    selectText(pre);
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    done(ok);
  }
}

function selectText(node) {
  var range = document.createRange();
  range.selectNodeContents(node);
  var sel = window.getSelection();
  if (sel) { sel.removeAllRanges(); sel.addRange(range); }
}

function showResult(out, parts) {
  out.textContent = "";
  out.hidden = false;
  parts.forEach(function (p) { add(out, p); });
}

/* ---- Event streams: a text/event-stream answer is shown event by event as it arrives. ---- */

/** Events kept on screen (older ones are removed and counted), the longest line and the most data of one event kept, in characters. */
var MAX_EVENTS_SHOWN = 200;
var MAX_EVENT_LINE = 65536;
var MAX_EVENT_DATA = 1048576;

function prettyData(text) {
  try { return text ? JSON.stringify(JSON.parse(text), null, 2) : text; } catch (e) { return text; }
}

/**
 * Reads the body with its stream reader, parsing the event-stream format (WHATWG HTML 9.2) as the
 * bytes come: "event", "data" (lines joined), "id"; comments and "retry" are skipped. Resolves
 * when the stream ends or is aborted (the Stop button); each event becomes an item of the list.
 */
function streamEvents(res, out, list, count) {
  var reader = res.body.getReader();
  var decoder = new TextDecoder();
  var pending = "", skipping = false, shown = 0, dropped = 0;
  var ev = { type: "", data: [], size: 0, id: null };
  var note = null;
  var dispatch = function () {
    if (ev.data.length > 0) {
      var item = el("li", "sse-event");
      item.setAttribute("data-event", ev.type || "message");
      if (ev.id !== null) item.setAttribute("data-id", ev.id);
      add(item, el("div", "sse-head", "event: " + (ev.type || "message") + (ev.id !== null ? " \u00b7 id: " + ev.id : "")),
        el("pre", "sse-data", prettyData(ev.data.join("\n"))));
      add(list, item);
      shown++;
      if (list.childNodes.length > MAX_EVENTS_SHOWN) { list.removeChild(list.firstChild); dropped++; }
      count.textContent = shown + (shown === 1 ? " event" : " events") + (dropped > 0 ? " (the first " + dropped + " no longer shown)" : "");
    }
    ev = { type: "", data: [], size: 0, id: ev.id };
  };
  var line = function (text) {
    if (text === "") { dispatch(); return; }
    if (text.charAt(0) === ":") return;
    var colon = text.indexOf(":");
    var field = colon === -1 ? text : text.slice(0, colon);
    var value = colon === -1 ? "" : text.slice(colon + (text.charAt(colon + 1) === " " ? 2 : 1));
    if (field === "event") ev.type = value;
    else if (field === "data" && ev.size + value.length <= MAX_EVENT_DATA) { ev.data.push(value); ev.size += value.length + 1; }
    else if (field === "data" && ev.data[ev.data.length - 1] !== "\u2026 (more data not shown)") ev.data.push("\u2026 (more data not shown)");
    else if (field === "id" && value.indexOf("\u0000") === -1) ev.id = value;
  };
  var feed = function (text) {
    var start = 0;
    for (var i = 0; i < text.length; i++) {
      var c = text.charAt(i);
      if (c !== "\n" && c !== "\r") continue;
      var piece = pending + text.slice(start, i);
      pending = "";
      if (!skipping) line(piece);
      skipping = false;
      // "\r\n" is one line end, even when the "\n" is the first character of the next chunk.
      if (c === "\r" && text.charAt(i + 1) === "\n") i++;
      start = i + 1;
    }
    var rest = text.slice(start);
    if (pending.length + rest.length > MAX_EVENT_LINE) {
      // A line longer than the limit is dropped, not buffered without end.
      if (!skipping && note === null) note = add(out, el("div", "meta-line warn", "A line longer than " + MAX_EVENT_LINE + " characters was dropped.")).lastChild;
      pending = "";
      skipping = true;
    } else if (!skipping) {
      pending += rest;
    }
  };
  var lastWasCr = false;
  var pump = function () {
    return reader.read().then(function (chunk) {
      if (chunk.done) {
        feed(decoder.decode());
        out.setAttribute("data-stream", "ended");
        return;
      }
      var text = decoder.decode(chunk.value, { stream: true });
      if (lastWasCr && text.charAt(0) === "\n") text = text.slice(1);
      lastWasCr = text.charAt(text.length - 1) === "\r";
      feed(text);
      return pump();
    });
  };
  out.setAttribute("data-stream", "open");
  return pump();
}

function send(form, button, stop, out) {
  var req = buildRequest(form);
  if (req.missing.length > 0) {
    out.setAttribute("data-status", "invalid");
    showResult(out, [el("div", "error-box", "Fill in the path parameter(s): " + req.missing.join(", "))]);
    return;
  }
  var headers = new Headers();
  try {
    req.headers.forEach(function (h) { headers.append(h[0], h[1]); });
  } catch (e) {
    out.setAttribute("data-status", "invalid");
    showResult(out, [el("div", "error-box", "Invalid header: " + e.message)]);
    return;
  }
  var init = { method: req.method, headers: headers };
  if (req.body !== null) init.body = req.body;
  if (req.parts !== null) {
    var data = new FormData();
    req.parts.forEach(function (p) { if (typeof p[1] === "string") data.append(p[0], p[1]); else data.append(p[0], p[1], p[1].name); });
    init.body = data;
  }
  var controller = new AbortController();
  init.signal = controller.signal;
  var stopRequest = function () { controller.abort(); };
  stop.addEventListener("click", stopRequest);
  stop.hidden = false;
  stop.disabled = false;
  var started = Date.now();
  button.disabled = true;
  out.setAttribute("data-status", "pending");
  out.removeAttribute("data-stream");
  showResult(out, [el("div", "muted", req.method + " " + req.url + " \u2026")]);
  var statusLine = function (res) {
    return add(el("div"), el("span", "status s" + String(res.status).charAt(0), String(res.status)),
      el("span", null, res.statusText + " \u00b7 " + (Date.now() - started) + " ms \u00b7 " + req.method + " " + req.url));
  };
  var headerLines = function (res) {
    var lines = [];
    res.headers.forEach(function (value, name) { lines.push(name + ": " + value); });
    return el("pre", "resp-headers", lines.join("\n"));
  };
  fetch(req.url, init).then(function (res) {
    if (/^text\/event-stream\s*(;|$)/i.test(res.headers.get("content-type") || "") && res.body && typeof res.body.getReader === "function") {
      var list = el("ol", "sse-events");
      var count = el("div", "sse-count muted", "0 events");
      out.setAttribute("data-status", String(res.status));
      showResult(out, [statusLine(res), el("div", "sub-label", "Response headers"), headerLines(res),
        el("div", "sub-label", "Events (as they arrive; Stop ends the request)"), count, list]);
      return streamEvents(res, out, list, count);
    }
    return res.text().then(function (text) {
      var pretty = prettyData(text);
      if (pretty.length > 200000) pretty = pretty.slice(0, 200000) + "\n\u2026 (truncated)";
      out.setAttribute("data-status", String(res.status));
      showResult(out, [statusLine(res), el("div", "sub-label", "Response headers"), headerLines(res),
        el("div", "sub-label", "Response body"), el("pre", "resp-body", pretty || "(empty)")]);
    });
  }).catch(function (err) {
    if (controller.signal.aborted) {
      // Stopped by the user: what arrived stays on screen.
      if (out.getAttribute("data-stream") === "open") out.setAttribute("data-stream", "stopped");
      else { out.setAttribute("data-status", "stopped"); showResult(out, [el("div", "muted", "Stopped: " + req.method + " " + req.url)]); }
      add(out, el("div", "muted stopped-note", "Stopped after " + (Date.now() - started) + " ms."));
      return;
    }
    if (out.getAttribute("data-stream") === "open") { out.setAttribute("data-stream", "failed"); add(out, el("div", "error-box", "The stream broke: " + (err && err.message ? err.message : String(err)))); return; }
    out.setAttribute("data-status", "error");
    showResult(out, [el("div", "error-box", "Request failed: " + (err && err.message ? err.message : String(err)))]);
  }).then(function () {
    stop.removeEventListener("click", stopRequest);
    stop.hidden = true;
    button.disabled = false;
  });
}

/** A text input, or a select for an enum or boolean (with an empty "—" choice when optional). */
function paramInput(p) {
  var schema = get(p, "schema");
  var options = choices(schema);
  var input;
  if (options !== null) {
    input = el("select");
    if (!p.required) { var empty = el("option", null, "\u2014"); empty.value = ""; add(input, empty); }
    options.forEach(function (o) { var opt = el("option", null, o); opt.value = o; add(input, opt); });
    var preset = deref(schema);
    if (p.required && own(preset, "default") && options.indexOf(String(preset["default"])) !== -1) input.value = String(preset["default"]);
  } else {
    input = el("input");
    input.type = "text";
    input.autocomplete = "off";
    input.spellcheck = false;
    input.placeholder = typeLabel(schema);
    if (p["in"] === "path") {
      var ex = example(schema, 0, []);
      if (ex !== null && ex !== undefined) input.value = String(ex);
    }
  }
  input.name = p["in"] + ":" + p.name;
  return input;
}

function tryItForm(path, method, op, params) {
  var node = el("form", "try");
  node.setAttribute("data-operation", op.operationId || "");
  add(node, el("h4", null, "Try it"));
  var authLine = add(node, el("div", "try-auth")).lastChild;
  var form = { path: path, method: method, op: op, fields: [], bodyArea: null, parts: null, contentType: "" };
  params.forEach(function (p) {
    var where = p["in"];
    if (where !== "path" && where !== "query" && where !== "header" && where !== "cookie") return;
    var input = paramInput(p);
    var note = where + (p.required ? ", required" : "") + " \u00b7 " + typeLabel(get(p, "schema"));
    var label = add(el("span", "field-label", p.name), el("small", null, note));
    if (where === "cookie") add(label, el("small", "warn", "A browser's fetch cannot send a cookie: used in the curl command only."));
    form.fields.push({ param: p, input: input });
    add(node, add(el("label", "field"), label, input));
  });
  var rb = deref(get(op, "requestBody"));
  var content = get(rb, "content");
  if (isObj(content) && Object.keys(content).length > 0 && method !== "get" && method !== "head") {
    form.contentType = Object.keys(content)[0];
    var schema = get(content[form.contentType], "schema");
    if (/^multipart\/form-data\s*(;|$)/i.test(form.contentType)) {
      form.parts = [];
      var partsBox = add(el("fieldset", "parts"), el("legend", null, "Body \u00b7 " + form.contentType));
      formProperties(schema).forEach(function (p) {
        var input = partInput(p);
        var note = (p.required ? "required \u00b7 " : "") + (p.kind === "file" ? "file" : p.kind === "files" ? "files" : typeLabel(p.schema));
        form.parts.push({ part: p, input: input });
        add(partsBox, add(el("label", "field"), add(el("span", "field-label", p.name), el("small", null, note)), input));
      });
      if (form.parts.length === 0) add(partsBox, el("div", "meta-line", "The schema names no fields: the body is sent empty."));
      add(node, partsBox);
    } else {
      var bodyArea = el("textarea");
      bodyArea.name = "body";
      bodyArea.spellcheck = false;
      if (/json/i.test(form.contentType)) bodyArea.textContent = JSON.stringify(example(schema, 0, []), null, 2);
      else if (/^text\//i.test(form.contentType)) bodyArea.textContent = "Hello";
      form.bodyArea = bodyArea;
      add(node, add(el("label", "field"), add(el("span", "field-label", "Body"), el("small", null, form.contentType)), bodyArea));
    }
  }
  var curl = el("pre", "curl");
  var copy = el("button", "plain copy", "Copy");
  copy.type = "button";
  var copyStatus = el("span", "copy-status muted");
  add(node, add(el("div", "curl-box"), add(el("div", "curl-head"), el("span", "sub-label", "curl"), copy, copyStatus), curl));
  var button = el("button", "send", "Send");
  button.type = "submit";
  var stop = el("button", "plain stop", "Stop");
  stop.type = "button";
  stop.hidden = true;
  var out = el("div", "result");
  out.hidden = true;
  add(node, add(el("div", "actions"), button, stop), out);

  var refresh = function () {
    var req = buildRequest(form);
    curl.textContent = curlCommand(req);
    authLine.textContent = req.auth.note;
    authLine.className = "try-auth" + (req.auth.warn ? " warn" : "");
    copyStatus.textContent = "";
  };
  node.addEventListener("input", refresh);
  node.addEventListener("change", refresh);
  credentialListeners.push(refresh);
  copy.addEventListener("click", function () { copyText(curl.textContent, curl, copyStatus); });
  node.addEventListener("submit", function (ev) {
    ev.preventDefault();
    refresh();
    send(form, button, stop, out);
  });
  refresh();
  return node;
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
  var security = operationSecurity(op);
  if (security.length > 0) {
    var names = security.map(function (req) { return (isObj(req) ? Object.keys(req) : []).join(" + ") || "anonymous"; });
    add(body, el("div", "meta-line", "Security: " + names.join(" or ")));
  } else if (Array.isArray(get(op, "security"))) {
    add(body, el("div", "meta-line", "Security: none"));
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
    // 3.2: other methods (PURGE...) under additionalOperations, keyed as sent; shown lowercased like the rest.
    var extra = isObj(get(item, "additionalOperations")) ? item.additionalOperations : {};
    METHODS.concat(Object.keys(extra)).forEach(function (m, i) {
      var op = i < METHODS.length ? get(item, m) : get(extra, m);
      if (i >= METHODS.length) m = m.toLowerCase();
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
  add(header, authorizePanel());
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
