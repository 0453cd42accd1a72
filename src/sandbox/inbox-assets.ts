import { createHash } from 'node:crypto';

/**
 * The inbox's stylesheet and script, served by the sandbox itself (no CDN, nothing fetched from
 * elsewhere). The pages work without the script; it adds live updates (Server-Sent Events), unread
 * marks (localStorage, per browser), keyboard navigation, relative times and the buttons.
 */
export const INBOX_CSS = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
a{color:#0b57d0}
.top{display:flex;align-items:center;gap:16px;background:#1f2328;color:#fff;padding:8px 16px;flex-wrap:wrap}
.brand{color:#fff;text-decoration:none;font-weight:700}.brand span{font-weight:400;opacity:.7}
.sections{display:flex;gap:4px;flex:1}.sections a{color:#d0d7de;text-decoration:none;padding:4px 10px;border-radius:6px;white-space:nowrap}
.sections a[aria-current]{background:#32383f;color:#fff}.n{font-size:12px;opacity:.8;font-variant-numeric:tabular-nums}
.live{color:#6e7781;font-size:12px}.live.on{color:#3fb950}.live.off{color:#f85149}
main{padding:12px 16px;max-width:1280px;margin:0 auto}
footer{color:#6e7781;font-size:12px;padding:16px;text-align:center}
kbd{border:1px solid #d0d7de;border-bottom-width:2px;border-radius:4px;padding:0 4px;font-size:11px;background:#fff}
.bar{display:flex;gap:8px;flex-wrap:wrap;margin:4px 0 8px}
.bar input{flex:1 1 220px;min-width:0;padding:6px 8px;border:1px solid #d0d7de;border-radius:6px;font:inherit}
.bar select,.bar button,button,.button{padding:6px 10px;border:1px solid #d0d7de;border-radius:6px;background:#fff;font:inherit;color:inherit;cursor:pointer;text-decoration:none}
button.danger{color:#cf222e;border-color:#f0b4b8}.reset{align-self:center}
.summary{display:flex;gap:12px;flex-wrap:wrap;align-items:center;color:#57606a;margin:4px 0 8px}
.summary a{color:#57606a}.summary button{margin-left:auto}
.list,.deliveries{list-style:none;margin:0;padding:0;background:#fff;border:1px solid #d0d7de;border-radius:8px;overflow:hidden}
.row>a{display:grid;grid-template-columns:minmax(0,15em) minmax(0,13em) minmax(0,1fr) auto 7em;gap:12px;align-items:baseline;padding:8px 12px;border-top:1px solid #eaeef2;color:inherit;text-decoration:none}
.row:first-child>a{border-top:0}
.row>a:hover{background:#f6f8fa}.row.selected>a,.row>a:focus{background:#ddf4ff;outline:none}
.row.unread .to,.row.unread b{font-weight:700}.row.unread>a{box-shadow:inset 3px 0 #0969da}
.row b{font-weight:500}
.to,.from,.subject,.url{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.from,.preview{color:#6e7781}
time{white-space:nowrap;color:#57606a;font-variant-numeric:tabular-nums;text-align:right}
.tags{display:flex;gap:4px;white-space:nowrap}
.st,.kind{font-size:11px;padding:1px 7px;border-radius:10px;background:#dafbe1;color:#116329}
.st.SCHEDULED{background:#fff8c5;color:#7d4e00}.kind{background:#ddf4ff;color:#0969da}
.pager{display:flex;justify-content:space-between;align-items:center;padding:10px 2px;color:#57606a}.off{color:#afb8c1}
.empty{padding:24px;text-align:center;color:#57606a;background:#fff;border:1px dashed #d0d7de;border-radius:8px}
.crumbs{display:flex;gap:16px;margin:4px 0}
h1{font-size:20px;margin:8px 0;overflow-wrap:anywhere}
.meta{display:flex;gap:12px;align-items:flex-start;justify-content:space-between;flex-wrap:wrap}
.meta dl,.details{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px;margin:0;min-width:0}
dt{color:#57606a}dd{margin:0;overflow-wrap:anywhere;min-width:0}
.actions{display:flex;gap:8px;align-items:center}
.tabs{display:flex;gap:2px;border-bottom:1px solid #d0d7de;margin:12px 0 0;overflow-x:auto}
.tabs a{padding:8px 14px;text-decoration:none;color:#57606a;border-bottom:2px solid transparent}
.tabs a[aria-selected]{color:#1f2328;border-color:#fd8c73;font-weight:600}
.panel{background:#fff;border:1px solid #d0d7de;border-top:0;padding:12px;border-radius:0 0 8px 8px}
.toolbar{display:flex;gap:12px;flex-wrap:wrap;align-items:center;margin-bottom:8px}
.widths a{padding:4px 10px;border:1px solid #d0d7de;text-decoration:none;color:inherit}.widths a:first-child{border-radius:6px 0 0 6px}
.widths a:last-child{border-radius:0 6px 6px 0;border-left:0}.widths a[aria-current]{background:#1f2328;color:#fff}
.note{color:#57606a}.warn{color:#9a6700}
.frame{margin:0 auto;max-width:100%}.frame.mobile{width:375px}
.frame iframe{display:block;width:100%;height:70vh;border:1px solid #d0d7de;border-radius:6px;background:#fff;resize:vertical}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
pre.code,pre.text{background:#f6f8fa;padding:10px;border-radius:6px;font:12px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace}
pre.text{font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace}
.none{color:#afb8c1}
table.checks{width:100%;border-collapse:collapse;font-size:13px}table.checks th,table.checks td{text-align:left;vertical-align:top;padding:6px 8px;border-top:1px solid #eaeef2}
table.checks th{border-top:0;color:#57606a;font-weight:600}table.checks td:nth-child(4){overflow-wrap:anywhere}
.sev{font-weight:600}.sev.error{color:#cf222e}.sev.warning{color:#9a6700}.sev.info{color:#57606a}
.delivery>details>summary{display:grid;grid-template-columns:4em minmax(0,13em) minmax(0,1fr) auto auto 7em;gap:12px;align-items:baseline;padding:8px 12px;border-top:1px solid #eaeef2;cursor:pointer;list-style:none}
.delivery:first-child>details>summary{border-top:0}
.delivery>details>summary::-webkit-details-marker{display:none}
.code.ok{color:#116329;font-weight:600}.code.failed{color:#cf222e;font-weight:600;overflow:hidden;text-overflow:ellipsis}
.attempt,.retry{color:#57606a;white-space:nowrap}
.delivery-body{padding:4px 12px 12px}.delivery-body h3{font-size:13px;margin:10px 0 4px}
.notfound{text-align:center;padding:40px 0}
@media (max-width:700px){
main{padding:8px}
.top{gap:8px;padding:8px}.brand span{display:none}
.row>a{grid-template-columns:minmax(0,1fr) auto;gap:2px 8px}
.row .from{display:none}.row .subject{grid-column:1/-1;grid-row:2}.row .tags{grid-row:3;grid-column:1/-1}
.row time{grid-row:1;grid-column:2}
.delivery>details>summary{grid-template-columns:auto minmax(0,1fr) auto;gap:2px 8px}
.delivery .url{grid-column:1/-1;grid-row:2}.delivery .attempt,.delivery .retry{grid-row:3}
.summary button{margin-left:0}
footer{display:none}
}
`.trim();

export const INBOX_JS = `(function () {
  'use strict';
  var READ_KEY = 'mailroom-sandbox-read';
  var READ_MAX = 5000;
  var body = document.body;

  function readSet() {
    try { return new Set(JSON.parse(localStorage.getItem(READ_KEY) || '[]')); } catch (e) { return new Set(); }
  }
  function markRead(id) {
    var ids = Array.from(readSet()).filter(function (x) { return x !== id; });
    ids.push(id);
    try { localStorage.setItem(READ_KEY, JSON.stringify(ids.slice(-READ_MAX))); } catch (e) { /* storage full or off */ }
  }
  function paintUnread() {
    var read = readSet();
    var rows = document.querySelectorAll('.row[data-id]');
    var unread = 0;
    rows.forEach(function (row) {
      var isUnread = !read.has(row.getAttribute('data-id'));
      row.classList.toggle('unread', isUnread);
      if (isUnread) unread += 1;
    });
    var label = document.getElementById('unread');
    if (label) label.textContent = rows.length ? unread + ' unread on this page' : '';
  }

  function relative(iso) {
    var t = Date.parse(iso);
    if (isNaN(t)) return iso;
    var s = Math.round((t - Date.now()) / 1000), abs = Math.abs(s), n, unit;
    if (abs < 45) return s > 0 ? 'in a moment' : 'just now';
    if (abs < 3600) { n = Math.round(abs / 60); unit = 'min'; }
    else if (abs < 86400) { n = Math.round(abs / 3600); unit = 'h'; }
    else { n = Math.round(abs / 86400); unit = 'd'; }
    return s > 0 ? 'in ' + n + ' ' + unit : n + ' ' + unit + ' ago';
  }
  function paintTimes() {
    document.querySelectorAll('time[datetime]').forEach(function (el) {
      var iso = el.getAttribute('datetime');
      el.textContent = relative(iso);
      el.title = new Date(iso).toString() + ' (' + iso + ')';
    });
  }

  function post(url, body) {
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body || {}), credentials: 'same-origin' })
      .then(function (res) { if (!res.ok) throw new Error('the sandbox answered ' + res.status); return res.json(); });
  }

  // Keyboard: j/k move (in the list: the selection; on an email: older/newer), Enter opens, / searches, u goes back.
  var selected = -1;
  function rows() { return Array.prototype.slice.call(document.querySelectorAll('#list > li')); }
  function select(i) {
    var all = rows();
    if (all.length === 0) return;
    selected = Math.max(0, Math.min(all.length - 1, i));
    all.forEach(function (r, j) { r.classList.toggle('selected', j === selected); });
    var target = all[selected].querySelector('a, summary');
    if (target) { target.focus(); all[selected].scrollIntoView({ block: 'nearest' }); }
  }
  document.addEventListener('keydown', function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var tag = (ev.target && ev.target.tagName) || '';
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') { if (ev.key === 'Escape') ev.target.blur(); return; }
    var article = document.querySelector('article[data-email]');
    var go = function (sel) { var a = document.querySelector(sel); if (a) { ev.preventDefault(); location.href = a.href; } };
    if (ev.key === '/') { var q = document.querySelector('input[name=q]'); if (q) { ev.preventDefault(); q.focus(); q.select(); } }
    else if (ev.key === 'u' || (ev.key === 'Escape' && article)) go('.crumbs a[data-key=u]');
    else if (article && ev.key === 'j') go('.crumbs a[rel=next]');
    else if (article && ev.key === 'k') go('.crumbs a[rel=prev]');
    else if (ev.key === 'j') { ev.preventDefault(); select(selected + 1); }
    else if (ev.key === 'k') { ev.preventDefault(); select(selected < 0 ? 0 : selected - 1); }
    else if (ev.key === 'Enter' && selected >= 0 && document.activeElement === body) { var r = rows()[selected]; var a = r && r.querySelector('a'); if (a) location.href = a.href; }
  });

  document.addEventListener('change', function (ev) {
    if (ev.target && ev.target.matches && ev.target.matches('.bar select')) ev.target.form.submit();
  });

  document.addEventListener('click', function (ev) {
    var button = ev.target && ev.target.closest && ev.target.closest('button[data-action]');
    if (!button) return;
    var action = button.getAttribute('data-action');
    var id = button.getAttribute('data-id');
    button.disabled = true;
    var done;
    if (action === 'delete') {
      var next = document.querySelector('.crumbs a[rel=next]') || document.querySelector('.crumbs a[rel=prev]');
      done = post('/_sandbox/emails/' + encodeURIComponent(id) + '/delete').then(function () { location.href = next ? next.href : '/'; });
    } else if (action === 'clear') {
      // The workspace shown, when it is not the first: its emails go, no other's.
      var workspace = button.getAttribute('data-workspace');
      if (!confirm(workspace ? 'Delete every email of this workspace?' : 'Delete every email in this sandbox?')) { button.disabled = false; return; }
      done = post('/_sandbox/emails/clear', workspace ? { workspace: workspace } : {}).then(function () { location.href = workspace ? '/?workspace=' + encodeURIComponent(workspace) : '/'; });
    } else if (action === 'resend') {
      done = post('/_sandbox/deliveries/' + encodeURIComponent(id) + '/resend').then(function () { button.textContent = 'Resent'; });
    }
    if (done) done.catch(function (err) { button.disabled = false; alert('mailroom sandbox: ' + err.message); });
  });

  // Live updates: the sandbox says when its counts change; the page refetches itself and swaps its live parts.
  var rendered = (body.getAttribute('data-state') || '').split(',').map(Number);
  var refreshing = false, again = false;
  function refresh() {
    if (refreshing) { again = true; return; }
    refreshing = true;
    fetch(location.href, { headers: { accept: 'text/html' }, credentials: 'same-origin' }).then(function (res) {
      return res.text().then(function (html) { return { ok: res.ok, html: html }; });
    }).then(function (page) {
      var doc = new DOMParser().parseFromString(page.html, 'text/html');
      var region = document.getElementById('live-region');
      var fresh = doc.getElementById('live-region');
      if (region && !page.ok && document.querySelector('article[data-email]')) region.innerHTML = '<span class="note warn">This email was deleted.</span>';
      else if (region && fresh) {
        var keep = selected >= 0 && rows()[selected] ? rows()[selected].getAttribute('data-id') : null;
        var open = Array.prototype.map.call(region.querySelectorAll('li[data-id] > details[open]'), function (d) { return d.parentNode.getAttribute('data-id'); });
        region.innerHTML = fresh.innerHTML;
        open.forEach(function (id) { var d = region.querySelector('li[data-id="' + id + '"] > details'); if (d) d.open = true; });
        if (keep) { var i = rows().findIndex(function (r) { return r.getAttribute('data-id') === keep; }); selected = i; if (i >= 0) rows()[i].classList.add('selected'); }
      }
      ['.summary', '.sections'].forEach(function (sel) { var a = document.querySelector(sel), b = doc.querySelector(sel); if (a && b) a.innerHTML = b.innerHTML; });
      paintUnread(); paintTimes();
    }).catch(function () { /* the next change tries again */ }).then(function () {
      refreshing = false;
      if (again) { again = false; refresh(); }
    });
  }
  var lastVersion = null;
  function onChange(ev) {
    var s = JSON.parse(ev.data);
    var now = [s.emails, s.scheduled, s.deliveries];
    // The first message tells what changed between this page's rendering and the stream's opening.
    var changed = lastVersion === null ? now.join() !== rendered.join() : s.version !== lastVersion;
    lastVersion = s.version;
    rendered = now;
    if (changed && body.getAttribute('data-section') !== 'none') refresh();
  }
  if (window.EventSource) {
    var live = document.getElementById('live');
    var scope = body.getAttribute('data-workspace');
    var source = new EventSource('/_sandbox/stream' + (scope ? '?workspace=' + encodeURIComponent(scope) : ''));
    source.addEventListener('change', onChange);
    source.onopen = function () { live.className = 'live on'; live.title = 'Live updates: on'; };
    source.onerror = function () {
      live.className = 'live off';
      if (source.readyState !== 2) { live.title = 'Live updates: reconnecting'; return; }
      // The sandbox refused the stream (EventSource stops trying): say why when the workspace is gone.
      live.title = 'Live updates: off (reload the page)';
      if (!scope) return;
      fetch('/_sandbox/workspaces').then(function (r) { return r.json(); }).then(function (list) {
        if ((list.items || []).some(function (w) { return w.id === scope; }) || document.getElementById('gone')) return;
        live.title = 'Live updates: off (the workspace is gone)';
        var note = document.createElement('p');
        note.id = 'gone';
        note.className = 'note warn';
        note.setAttribute('role', 'status');
        note.textContent = 'Workspace ' + scope + ' is no longer in this sandbox (deleted, or the sandbox restarted without it): this page will not change.';
        var main = document.querySelector('main');
        if (main) main.insertBefore(note, main.firstChild);
      }).catch(function () { /* the sandbox is gone too: the dot says off */ });
    };
  }

  var article = document.querySelector('article[data-email]');
  if (article) markRead(article.getAttribute('data-email'));
  paintUnread();
  paintTimes();
  setInterval(paintTimes, 30000);
})();
`;

export const ASSET_VERSION = createHash('sha256').update(INBOX_CSS).update(INBOX_JS).digest('hex').slice(0, 12);
