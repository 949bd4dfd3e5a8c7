/**
 * The decision card's document (protocol/app/card.ts): one self-contained HTML page, no outside
 * resource of any kind, that speaks the MCP Apps view protocol (JSON-RPC 2.0 over postMessage to
 * the host, ext-apps 2026-01-26): `ui/initialize` then `ui/notifications/initialized`; it reads the
 * decision and its secret from the `_meta` of `ui/notifications/tool-result`, the editor from
 * `ui/notifications/tool-input`, the theme from the host context, and answers with `tools/call`
 * of `decide`. Every text it shows is set with textContent: the lines come escaped as the editor
 * shows them (protocol/visible.ts) and nothing in them is markup. Its own CSP meta tag allows no
 * origin at all (the host's sandbox adds its own).
 */

const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1b1b;--muted:#5c5c5c;--line:#d0d0d0;--code:#f5f5f5;--add:#1a7f37;--del:#b42318;--btn:#1f6feb;--btnfg:#fff}
:root[data-theme=dark]{--bg:#1e1e1e;--fg:#e8e8e8;--muted:#a8a8a8;--line:#3c3c3c;--code:#2a2a2a;--add:#5fd17a;--del:#ff7b72;--btn:#388bfd;--btnfg:#fff}
*{box-sizing:border-box}
body{margin:0;padding:12px;background:var(--bg);color:var(--fg);font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif}
h1{font-size:15px;margin:0 0 4px}
.meta{color:var(--muted);font-size:12px;margin:0 0 8px;overflow-wrap:anywhere}
.sec{margin:8px 0}
.sec h2{font-size:12px;margin:0 0 2px;overflow-wrap:anywhere}
pre{margin:0;padding:8px;background:var(--code);border:1px solid var(--line);border-radius:6px;overflow:auto;max-height:60vh;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;white-space:pre}
.add{color:var(--add)}.del{color:var(--del)}
.row{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin-top:10px}
input{flex:1 1 12em;min-width:0;padding:8px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg);font:inherit}
button{padding:8px 14px;border-radius:6px;border:1px solid var(--line);background:var(--bg);color:var(--fg);font:inherit;cursor:pointer}
button.yes{background:var(--btn);color:var(--btnfg);border-color:var(--btn)}
button:disabled{opacity:.5;cursor:default}
#status{margin-top:10px;font-weight:600}
`;

const SCRIPT = `
(function(){
  var pending = new Map(), nextId = 1, card = null, editor = null, busy = false;
  var $ = function(id){ return document.getElementById(id); };
  function send(msg){ window.parent.postMessage(Object.assign({jsonrpc:'2.0'}, msg), '*'); }
  function request(method, params){
    var id = nextId++;
    return new Promise(function(resolve, reject){ pending.set(id, {resolve: resolve, reject: reject}); send({id: id, method: method, params: params}); });
  }
  function theme(ctx){ if (ctx && (ctx.theme === 'dark' || ctx.theme === 'light')) document.documentElement.dataset.theme = ctx.theme; }
  function size(){ send({method:'ui/notifications/size-changed', params:{width: document.body.scrollWidth, height: document.body.scrollHeight}}); }
  function text(el, s){ el.textContent = s; return el; }
  function make(tag, cls, s){ var el = document.createElement(tag); if (cls) el.className = cls; if (s !== undefined) el.textContent = s; return el; }
  var SAID = {allowed:'Allowed', denied:'Denied', accepted:'Accepted', rejected:'Rejected', not_applied:'Accepted, but nothing could be applied'};
  var BY = {editor:'in the editor', dashboard:'on the dashboard', assistant:'here'};
  function render(){
    var d = card.decision, prompt = d.kind === 'prompt';
    text($('title'), prompt ? 'Allow ' + d.tool + ' (' + d.klass + ')?' : 'Review the edit of ' + d.tool + '?');
    text($('meta'), d.client + ' asks in ' + d.editor_name + (d.paths.length ? ' · ' + d.paths.join(', ') : ''));
    var body = $('body'); body.textContent = '';
    d.sections.forEach(function(s){
      var sec = make('div', 'sec');
      if (s.title !== null) sec.appendChild(make('h2', '', s.title));
      var pre = make('pre');
      if (s.lines === null) pre.textContent = '(' + s.chars + ' characters: too long to show here whole; only ' + (prompt ? 'deny' : 'reject') + ' is offered)';
      else s.lines.forEach(function(line, i){
        var cls = prompt ? '' : line.charAt(0) === '+' && line.slice(0, 3) !== '+++' ? 'add' : line.charAt(0) === '-' && line.slice(0, 3) !== '---' ? 'del' : '';
        pre.appendChild(make('span', cls, line + (i + 1 < s.lines.length ? '\\n' : '')));
      });
      sec.appendChild(pre); body.appendChild(sec);
    });
    var yes = prompt ? 'allow' : 'accept', no = prompt ? 'deny' : 'reject';
    $('yes').hidden = d.offers.indexOf(yes) < 0;
    text($('yes'), prompt ? 'Allow once' : 'Accept');
    text($('no'), prompt ? 'Deny' : 'Reject');
    $('yes').dataset.kind = yes; $('no').dataset.kind = no;
    $('form').hidden = false;
    size();
  }
  function settle(s){ text($('status'), s); $('form').hidden = true; size(); }
  function answer(kind){
    if (!card || busy) return;
    busy = true; $('yes').disabled = $('no').disabled = true;
    var reason = $('reason').value.trim(), args = {decision: card.decision.id, token: card.token, answer: kind};
    if (editor !== null) args.editor = editor;
    if (reason && (kind === 'deny' || kind === 'reject')) args.reason = reason;
    request('tools/call', {name: 'decide', arguments: args}).then(function(result){
      var data = result && result.structuredContent;
      if (data && data.said) return settle((SAID[data.said] || data.said) + '.');
      var err = null;
      try { err = JSON.parse(result.content[0].text).error; } catch (e) {}
      if (err && err.refusal === 'ALREADY_DECIDED') return settle('Already decided' + (err.by ? ' ' + (BY[err.by] || err.by) : '') + '.');
      settle('Not taken: ' + (err ? err.message : 'the host gave no answer'));
    }, function(e){ busy = false; $('yes').disabled = $('no').disabled = false; text($('status'), 'Not sent: ' + (e && e.message || e)); });
  }
  window.addEventListener('message', function(ev){
    if (ev.source !== window.parent) return;
    var m = ev.data; if (!m || m.jsonrpc !== '2.0') return;
    if (m.id !== undefined && !m.method) {
      var p = pending.get(m.id); if (!p) return; pending.delete(m.id);
      return m.error ? p.reject(new Error(m.error.message)) : p.resolve(m.result);
    }
    if (m.method === 'ui/notifications/tool-input') { var a = m.params && m.params.arguments; if (a && typeof a.editor === 'string') editor = a.editor; }
    else if (m.method === 'ui/notifications/tool-result') {
      var meta = m.params && m.params._meta && m.params._meta['vimrelay/card'];
      if (meta && meta.decision && typeof meta.token === 'string') { card = meta; render(); }
      else settle('Nothing waits for a decision here.');
    }
    else if (m.method === 'ui/notifications/host-context-changed') theme(m.params);
    else if (m.id !== undefined && m.method) send({id: m.id, result: {}});
  });
  $('yes').addEventListener('click', function(){ answer($('yes').dataset.kind); });
  $('no').addEventListener('click', function(){ answer($('no').dataset.kind); });
  request('ui/initialize', {appInfo: {name: 'vimrelay-decision', version: '1'}, appCapabilities: {}, protocolVersion: '2026-01-26'}).then(function(r){
    theme(r && r.hostContext);
    send({method: 'ui/notifications/initialized', params: {}});
    size();
  });
})();
`;

/** The card's HTML (see the module header). */
export const CARD_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'none'; img-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'">
<title>vimrelay decision</title><style>${STYLE}</style></head>
<body>
<h1 id="title">Waiting for the decision…</h1>
<p class="meta" id="meta"></p>
<div id="body"></div>
<div id="form" hidden>
<div class="row"><input id="reason" maxlength="2000" placeholder="Reason (optional, sent with deny or reject)" aria-label="Reason"></div>
<div class="row"><button class="yes" id="yes" type="button"></button><button id="no" type="button"></button></div>
</div>
<p id="status" role="status"></p>
<script>${SCRIPT}</script>
</body></html>`;
