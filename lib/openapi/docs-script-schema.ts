// Browser code of the docs page, part 1: DOM helpers, `$ref` resolution, readable schema
// rendering and example values. Plain ES2017 run in the page (not by Node); all text goes through
// textContent, never innerHTML. Shares the page script's scope with docs-script-ui.ts.
export const DOCS_SCRIPT_SCHEMA = String.raw`
var spec = null;

function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function add(parent) {
  for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
  return parent;
}
function isObj(v) { return typeof v === "object" && v !== null && !Array.isArray(v); }
function own(o, k) { return isObj(o) && Object.prototype.hasOwnProperty.call(o, k); }
function get(o, k) { return own(o, k) ? o[k] : undefined; }
function setOwn(o, k, v) { Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true }); }

/** Local JSON pointer lookup in the loaded document. */
function resolveRef(ref) {
  if (typeof ref !== "string" || ref.charAt(0) !== "#") return undefined;
  var node = spec;
  var parts = ref.slice(1).split("/");
  for (var i = 1; i < parts.length; i++) {
    var token;
    try { token = decodeURIComponent(parts[i]).replace(/~1/g, "/").replace(/~0/g, "~"); } catch (e) { return undefined; }
    if (Array.isArray(node) && /^[0-9]+$/.test(token)) node = node[Number(token)];
    else if (own(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}
function refName(ref) { return ref.slice(ref.lastIndexOf("/") + 1); }
function deref(s) {
  for (var hops = 0; hops < 16 && isObj(s) && typeof get(s, "$ref") === "string"; hops++) {
    var target = resolveRef(s.$ref);
    if (target === undefined) break;
    s = target;
  }
  return s;
}

function isSimple(s) {
  if (!isObj(s)) return true;
  if (own(s, "$ref") || own(s, "properties") || own(s, "anyOf") || own(s, "oneOf") || own(s, "allOf")) return false;
  return !isObj(get(s, "items"));
}

function typeLabel(s) {
  if (s === true || (isObj(s) && Object.keys(s).length === 0)) return "any";
  if (s === false) return "nothing";
  if (!isObj(s)) return "?";
  var ref = get(s, "$ref");
  if (typeof ref === "string") return refName(ref);
  var t = get(s, "type");
  var label;
  if (Array.isArray(t)) label = t.join(" | ");
  else if (typeof t === "string") label = t;
  else if (own(s, "anyOf")) label = "any of";
  else if (own(s, "oneOf")) label = "one of";
  else if (own(s, "allOf")) label = "all of";
  else if (own(s, "const")) label = "constant";
  else if (Array.isArray(get(s, "enum"))) label = "enum";
  else if (own(s, "properties")) label = "object";
  else label = "any";
  var items = get(s, "items");
  if (label === "array" && (isObj(items) || items === true) && isSimple(items)) label = "array of " + typeLabel(items);
  else if (label === "array" && isObj(items) && typeof get(items, "$ref") === "string") label = "array of " + refName(items.$ref);
  var format = get(s, "format");
  if (typeof format === "string") label += " (" + format + ")";
  return label;
}

function show(v) {
  try { return JSON.stringify(v); } catch (e) { return String(v); }
}

/** Short human descriptions of a schema's rules. */
function constraints(s) {
  var out = [];
  if (!isObj(s)) return out;
  var pairs = [
    ["minLength", "min length "], ["maxLength", "max length "], ["minimum", "\u2265 "], ["maximum", "\u2264 "],
    ["exclusiveMinimum", "> "], ["exclusiveMaximum", "< "], ["multipleOf", "multiple of "],
    ["minItems", "min items "], ["maxItems", "max items "], ["minProperties", "min properties "], ["maxProperties", "max properties "],
  ];
  for (var i = 0; i < pairs.length; i++) {
    var v = get(s, pairs[i][0]);
    if (typeof v === "number") out.push(pairs[i][1] + v);
  }
  if (typeof get(s, "pattern") === "string") out.push("pattern " + s.pattern);
  if (get(s, "uniqueItems") === true) out.push("unique items");
  if (Array.isArray(get(s, "enum"))) out.push("one of " + s.enum.map(show).join(", "));
  if (own(s, "const")) out.push("= " + show(s.const));
  if (own(s, "default")) out.push("default " + show(s["default"]));
  if (get(s, "readOnly") === true) out.push("read-only");
  if (get(s, "writeOnly") === true) out.push("write-only");
  if (get(s, "deprecated") === true) out.push("deprecated");
  if (get(s, "additionalProperties") === false) out.push("no other properties");
  return out;
}

/**
 * A readable tree for a schema: type and rules, then properties, items and variants. A "$ref" is
 * shown by name in a collapsible block, open only at the top when openRefs is true.
 */
function schemaNode(s, depth, stack, openRefs) {
  var ref = isObj(s) ? get(s, "$ref") : undefined;
  var node, head;
  if (typeof ref === "string") {
    node = el("details", "schema ref-block");
    head = add(node, el("summary", "schema-head")).lastChild;
    add(head, el("span", "ref", refName(ref)));
    if (stack.indexOf(ref) !== -1) { add(head, el("span", "muted", "(recursive)")); return node; }
    var target = resolveRef(ref);
    if (target === undefined) { add(head, el("span", "warn", "(unresolved reference)")); return node; }
    node.open = openRefs === true && depth === 0;
    stack = stack.concat([ref]);
    s = target;
  } else {
    node = el("div", "schema");
    head = add(node, el("div", "schema-head")).lastChild;
  }
  add(head, el("span", "type", typeLabel(s)));
  constraints(s).forEach(function (c) { add(head, el("span", "constraint", c)); });
  if (!isObj(s)) return node;
  if (typeof get(s, "description") === "string") add(node, el("div", "desc", s.description));
  if (depth > 12) return node;
  var body = el("div", "schema-body");
  var props = get(s, "properties");
  if (isObj(props)) {
    var required = Array.isArray(get(s, "required")) ? s.required : [];
    var list = el("ul", "props");
    Object.keys(props).forEach(function (name) {
      var li = el("li", "prop");
      var label = add(el("span", "prop-name"), el("code", null, name));
      if (required.indexOf(name) !== -1) add(label, el("span", "req", "required"));
      add(list, add(li, label, schemaNode(props[name], depth + 1, stack, openRefs)));
    });
    add(body, list);
  }
  var items = get(s, "items");
  if (isObj(items) && !isSimple(items)) add(body, el("div", "sub-label", "items"), schemaNode(items, depth + 1, stack, openRefs));
  ["anyOf", "oneOf", "allOf"].forEach(function (k) {
    var variants = get(s, k);
    if (!Array.isArray(variants)) return;
    variants.forEach(function (v, i) {
      add(body, el("div", "sub-label", (k === "allOf" ? "part " : "variant ") + (i + 1)), schemaNode(v, depth + 1, stack, openRefs));
    });
  });
  var extra = get(s, "additionalProperties");
  if (isObj(extra)) add(body, el("div", "sub-label", "other properties"), schemaNode(extra, depth + 1, stack, openRefs));
  if (body.childNodes.length > 0) add(node, body);
  return node;
}

/**
 * The fixed choices of a parameter's schema, as the strings a form sends: the scalar values of its
 * "enum" (or "const"), or "true"/"false" for a boolean. null when the value is free-form.
 */
function choices(s) {
  s = deref(s);
  if (!isObj(s)) return null;
  var values = Array.isArray(get(s, "enum")) ? s["enum"] : own(s, "const") ? [s["const"]] : null;
  var type = get(s, "type");
  if (Array.isArray(type)) {
    var nonNull = type.filter(function (t) { return t !== "null"; });
    type = nonNull.length === 1 ? nonNull[0] : undefined;
  }
  if (values === null && type === "boolean") values = [true, false];
  if (values === null) return null;
  var out = [];
  values.forEach(function (v) {
    if (v === null || typeof v === "object") return;
    var text = String(v);
    if (out.indexOf(text) === -1) out.push(text);
  });
  return out.length > 0 ? out : null;
}

var FORMAT_EXAMPLES = {
  email: "user@example.com", uuid: "3fa85f64-5717-4562-b3fc-2c963f66afa6", "date-time": "2024-01-01T12:00:00Z",
  date: "2024-01-01", time: "12:00:00Z", uri: "https://example.com/", url: "https://example.com/", hostname: "example.com",
  ipv4: "192.0.2.1", ipv6: "2001:db8::1", duration: "PT1H",
};

function stringExample(s) {
  var format = get(s, "format");
  var v = typeof format === "string" && own(FORMAT_EXAMPLES, format) ? FORMAT_EXAMPLES[format] : "string";
  var min = typeof get(s, "minLength") === "number" ? Math.min(s.minLength, 1000) : 0;
  while (v.length < min) v += "x";
  if (typeof get(s, "maxLength") === "number" && v.length > s.maxLength) v = v.slice(0, Math.max(0, s.maxLength));
  return v;
}

function numberExample(s) {
  var min = get(s, "minimum"), max = get(s, "maximum"), exMin = get(s, "exclusiveMinimum");
  var lower = typeof min === "number" ? min : typeof exMin === "number" ? exMin + 1 : undefined;
  var v = 1;
  if (lower !== undefined && lower > v) v = lower;
  if (typeof max === "number" && v > max) v = max;
  return get(s, "type") === "integer" ? Math.ceil(v) : v;
}

/** A plausible value for a schema (prefers examples, defaults, constants). */
function example(s, depth, stack) {
  if (depth > 8) return null;
  var ref = isObj(s) ? get(s, "$ref") : undefined;
  if (typeof ref === "string") {
    if (stack.indexOf(ref) !== -1) return null;
    return example(resolveRef(ref), depth + 1, stack.concat([ref]));
  }
  if (!isObj(s)) return null;
  var examples = get(s, "examples");
  if (Array.isArray(examples) && examples.length > 0) return examples[0];
  if (own(s, "example")) return s.example;
  if (own(s, "default")) return s["default"];
  if (own(s, "const")) return s["const"];
  if (Array.isArray(get(s, "enum")) && s["enum"].length > 0) return s["enum"][0];
  var variants = get(s, "anyOf") || get(s, "oneOf");
  if (Array.isArray(variants) && variants.length > 0) return example(variants[0], depth + 1, stack);
  var type = get(s, "type");
  if (Array.isArray(type)) type = type.filter(function (t) { return t !== "null"; })[0];
  if (type === undefined && (own(s, "properties") || Array.isArray(get(s, "allOf")))) type = "object";
  if (type === "object") {
    var out = {};
    var parts = Array.isArray(get(s, "allOf")) ? s.allOf.concat([s]) : [s];
    parts.forEach(function (part) {
      var p = deref(part);
      var props = get(p, "properties");
      if (!isObj(props)) return;
      Object.keys(props).forEach(function (k) { setOwn(out, k, example(props[k], depth + 1, stack)); });
    });
    return out;
  }
  if (type === "array") {
    var items = get(s, "items");
    return isObj(items) ? [example(items, depth + 1, stack)] : [];
  }
  if (type === "string") return stringExample(s);
  if (type === "integer" || type === "number") return numberExample(s);
  if (type === "boolean") return true;
  return null;
}
`;
