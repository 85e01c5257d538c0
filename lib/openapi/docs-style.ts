// The docs page's stylesheet, inlined into one <style> element (its hash goes into the CSP).
// System fonts only: nothing is fetched, so the page works offline and under `default-src 'none'`.
export const DOCS_STYLE = String.raw`
:root {
  --bg: #f7f8fa; --panel: #ffffff; --text: #1d2330; --muted: #5f6b7a; --line: #dde2e8; --soft: #eef1f5;
  --accent: #2f5fd0; --code-bg: #f1f3f6; --warn: #a15c00; --err: #b3261e;
  --get: #2f6fdb; --post: #1f8a4c; --put: #b86e00; --patch: #0f8a8a; --delete: #c2362b; --other: #6b5fc7;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14171c; --panel: #1b1f26; --text: #e4e8ee; --muted: #9aa5b4; --line: #2d333d; --soft: #232832;
    --accent: #7ea2ff; --code-bg: #232832; --warn: #e0a040; --err: #ff8a80;
  }
}
* { box-sizing: border-box; }
html, body { margin: 0; padding: 0; }
body {
  background: var(--bg); color: var(--text);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
code, pre, textarea, .path, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; }
a { color: var(--accent); }
[hidden] { display: none !important; }
.layout { display: grid; grid-template-columns: 240px minmax(0, 1fr); min-height: 100vh; }
nav.sidebar {
  position: sticky; top: 0; align-self: start; height: 100vh; overflow-y: auto;
  padding: 20px 16px; border-right: 1px solid var(--line); background: var(--panel);
}
nav.sidebar h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 0 0 8px; }
nav.sidebar ul { list-style: none; margin: 0; padding: 0; }
nav.sidebar li a { display: flex; justify-content: space-between; gap: 8px; padding: 5px 8px; border-radius: 6px; text-decoration: none; color: var(--text); }
nav.sidebar li a:hover { background: var(--soft); }
nav.sidebar .count { color: var(--muted); font-size: 12px; }
main { padding: 24px 32px 64px; max-width: 1100px; width: 100%; }
header.top { margin-bottom: 20px; }
header.top h1 { margin: 0 0 6px; font-size: 26px; }
.badges { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-bottom: 8px; }
.badge { font-size: 12px; padding: 2px 8px; border-radius: 999px; background: var(--soft); color: var(--muted); border: 1px solid var(--line); }
.api-desc { color: var(--muted); white-space: pre-line; margin: 8px 0 0; }
.filter { width: 100%; padding: 9px 12px; margin-top: 14px; font: inherit; color: var(--text);
  background: var(--panel); border: 1px solid var(--line); border-radius: 8px; }
.filter:focus, input:focus, select:focus, textarea:focus, button:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
section.tag-group { margin-top: 28px; }
section.tag-group > h2 { font-size: 20px; margin: 0 0 4px; text-transform: none; }
.tag-desc { color: var(--muted); margin: 0 0 10px; }
details.op { background: var(--panel); border: 1px solid var(--line); border-left: 4px solid var(--other); border-radius: 8px; margin: 8px 0; }
details.op.op-get { border-left-color: var(--get); }
details.op.op-post { border-left-color: var(--post); }
details.op.op-put { border-left-color: var(--put); }
details.op.op-patch { border-left-color: var(--patch); }
details.op.op-delete { border-left-color: var(--delete); }
details.op > summary { display: flex; align-items: center; gap: 12px; padding: 9px 14px; cursor: pointer; list-style: none; }
details.op > summary::-webkit-details-marker { display: none; }
details.op > summary::after { content: "\25B8"; margin-left: auto; color: var(--muted); }
details.op[open] > summary::after { content: "\25BE"; }
details.op[open] > summary { border-bottom: 1px solid var(--line); }
details.op.deprecated .path { text-decoration: line-through; }
.method { display: inline-block; min-width: 64px; text-align: center; font-size: 12px; font-weight: 700; letter-spacing: .03em;
  color: #fff; background: var(--other); border-radius: 5px; padding: 3px 6px; }
.m-get { background: var(--get); } .m-post { background: var(--post); } .m-put { background: var(--put); }
.m-patch { background: var(--patch); } .m-delete { background: var(--delete); }
.path { font-size: 14px; font-weight: 600; word-break: break-all; }
.op-summary { color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.flag { font-size: 11px; padding: 1px 6px; border-radius: 4px; border: 1px solid var(--warn); color: var(--warn); }
.op-body { padding: 12px 16px 16px; }
.op-body h4 { margin: 18px 0 8px; font-size: 13px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.op-desc { white-space: pre-line; margin: 0 0 8px; }
.meta-line { color: var(--muted); font-size: 13px; margin: 2px 0; }
table.params { width: 100%; border-collapse: collapse; font-size: 14px; }
table.params th { text-align: left; font-weight: 600; color: var(--muted); font-size: 12px; border-bottom: 1px solid var(--line); padding: 6px 8px; }
table.params td { border-bottom: 1px solid var(--soft); padding: 6px 8px; vertical-align: top; }
.req { font-size: 11px; color: var(--err); margin-left: 6px; }
.type { color: var(--accent); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
.ref { font-weight: 600; margin-right: 6px; }
.constraint { font-size: 12px; color: var(--muted); background: var(--soft); border-radius: 4px; padding: 0 5px; margin-left: 6px; }
.muted { color: var(--muted); }
.warn { color: var(--warn); }
.desc { color: var(--muted); font-size: 13px; white-space: pre-line; }
.schema { font-size: 14px; }
.schema-body { border-left: 2px solid var(--soft); margin: 4px 0 4px 4px; padding-left: 12px; }
ul.props { list-style: none; margin: 0; padding: 0; }
li.prop { padding: 3px 0; }
.prop-name { display: inline-block; margin-right: 8px; }
.prop-name code { font-weight: 600; }
.prop > div.schema { display: inline; }
.prop > div.schema > .schema-head { display: inline; }
.prop > details.ref-block { display: inline-block; vertical-align: top; }
details.ref-block > summary { cursor: pointer; list-style: none; }
details.ref-block > summary::-webkit-details-marker { display: none; }
details.ref-block > summary::before { content: "\25B8"; color: var(--muted); display: inline-block; width: 1em; }
details.ref-block[open] > summary::before { content: "\25BE"; }
.sub-label { font-size: 12px; color: var(--muted); margin-top: 4px; }
.response { padding: 8px 0; border-bottom: 1px solid var(--soft); }
.status { display: inline-block; min-width: 44px; font-weight: 700; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.s2 { color: var(--post); } .s3 { color: var(--get); } .s4 { color: var(--warn); } .s5 { color: var(--err); }
.media { font-size: 12px; color: var(--muted); margin: 4px 0; }
form.try { margin-top: 18px; padding: 12px 14px; background: var(--soft); border-radius: 8px; }
form.try h4 { margin-top: 0; }
.field { display: grid; grid-template-columns: 200px minmax(0, 1fr); gap: 10px; align-items: center; margin: 6px 0; }
.field-label { font-size: 14px; }
.field-label small { color: var(--muted); display: block; font-size: 12px; }
.field input, .field select, form.try textarea { width: 100%; padding: 6px 8px; font: inherit; font-size: 14px; color: var(--text);
  background: var(--panel); border: 1px solid var(--line); border-radius: 6px; }
form.try textarea { min-height: 120px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; resize: vertical; }
.actions { display: flex; gap: 10px; align-items: center; margin-top: 10px; }
button.send { font: inherit; font-weight: 600; color: #fff; background: var(--accent); border: 0; border-radius: 6px; padding: 7px 18px; cursor: pointer; }
button.send:disabled { opacity: .6; cursor: progress; }
.result { margin-top: 12px; }
.result pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px; overflow: auto; max-height: 420px; font-size: 13px; margin: 6px 0; white-space: pre-wrap; word-break: break-word; }
.error-box { color: var(--err); }
details.authorize { margin-top: 14px; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 0 14px; }
details.authorize > summary { display: flex; align-items: center; gap: 10px; padding: 9px 0; cursor: pointer; list-style: none; }
details.authorize > summary::-webkit-details-marker { display: none; }
details.authorize > summary::before { content: "\25B8"; color: var(--muted); }
details.authorize[open] > summary::before { content: "\25BE"; }
details.authorize[open] { padding-bottom: 12px; }
.authorize-title { font-weight: 600; }
.auth-state { font-size: 12px; color: var(--muted); }
.auth-state.on { color: var(--post); font-weight: 600; }
.scheme { border-top: 1px solid var(--soft); padding: 10px 0 4px; }
.scheme-head { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
.scheme-name { font-weight: 600; }
.try-auth { font-size: 13px; color: var(--muted); margin: 0 0 8px; }
.try-auth.warn { color: var(--warn); }
.field-label small.warn { color: var(--warn); }
.curl-box { margin-top: 12px; }
.curl-head { display: flex; gap: 10px; align-items: center; }
pre.curl { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px; margin: 6px 0 0; overflow: auto;
  max-height: 240px; font-size: 13px; white-space: pre-wrap; word-break: break-all; }
button.plain { font: inherit; font-size: 13px; color: var(--text); background: var(--panel); border: 1px solid var(--line);
  border-radius: 6px; padding: 3px 12px; cursor: pointer; }
button.plain:hover { background: var(--soft); }
.copy-status { font-size: 12px; }
fieldset.parts { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 10px 8px; }
fieldset.parts legend { font-size: 13px; color: var(--muted); padding: 0 4px; }
ol.sse-events { list-style: none; margin: 6px 0; padding: 0; max-height: 420px; overflow: auto; }
.sse-event { border-left: 3px solid var(--accent); padding: 2px 0 2px 8px; margin: 6px 0; }
.sse-head { font-size: 12px; color: var(--muted); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.result pre.sse-data { margin: 2px 0; max-height: 160px; }
.loading { color: var(--muted); }
@media (max-width: 860px) {
  .layout { grid-template-columns: 1fr; }
  nav.sidebar { position: static; height: auto; border-right: 0; border-bottom: 1px solid var(--line); }
  main { padding: 16px; }
  .field { grid-template-columns: 1fr; gap: 4px; }
  .op-summary { white-space: normal; }
}
`;
