// The search UI: a full page for `GET /` and an embeddable web component for `GET /embed.js`.
// Both share one stylesheet, one piece of markup and one client script, so the page and the
// snippet look and behave the same. The client script is plain ES2020 kept in a raw string
// (no bundling, no framework) and must not contain backticks or "${".

const FONT = `"Noto Naskh Arabic", "Noto Sans Arabic", Tahoma, sans-serif`;

const CSS = String.raw`
:host { display: block; }
.az, .az * { box-sizing: border-box; }
.az {
  --az-fg: #1b1b1b; --az-muted: #4b4f56; --az-link: #0a4a94; --az-link-hover: #07366d;
  --az-line: #d3d7dd; --az-mark: #ffe27a; --az-bg: #fff;
  color: var(--az-fg); background: var(--az-bg); text-align: start;
  font-family: ` + FONT + String.raw`; font-size: 1.0625rem; line-height: 1.75;
  /* Long URLs and words wrap instead of widening the page. */
  overflow-wrap: anywhere; max-width: 48rem; margin-inline: auto;
}
.az-label { display: block; font-weight: 700; margin-block-end: .35rem; }
.az-row { display: flex; gap: .5rem; }
.az-input {
  flex: 1 1 auto; min-width: 0; font: inherit; color: inherit; background: #fff;
  padding: .5rem .8rem; border: 2px solid #6b7280; border-radius: .5rem;
}
.az-input::placeholder { color: #676b72; opacity: 1; }
.az-btn {
  flex: none; font: inherit; font-weight: 700; color: #fff; background: var(--az-link);
  padding: .5rem 1.1rem; border: 0; border-radius: .5rem; cursor: pointer;
}
.az-btn:hover { background: var(--az-link-hover); }
.az :focus-visible { outline: 3px solid var(--az-link); outline-offset: 2px; }
.az-input:focus-visible { outline-offset: 1px; border-color: var(--az-link); }
.az-hint { margin: .35rem 0 0; font-size: .875rem; color: var(--az-muted); }
.az kbd { font: .85em ui-monospace, monospace; border: 1px solid #8a9099; border-radius: .25rem; padding: 0 .3em; }
.az-results { margin-block-start: 1.25rem; }
.az-status { margin: 0 0 .5rem; font-size: .9375rem; color: var(--az-muted); }
.az-note {
  margin: 0 0 .5rem; font-size: .8125rem; color: #5c4300; background: #fff7dc;
  border-inline-start: 3px solid #d9a400; padding: .2rem .6rem;
}
.az-error {
  margin: 0; color: #8f1a1a; background: #fdeeee; border: 1px solid #efb1b1;
  border-radius: .5rem; padding: .6rem .8rem;
}
.az-list, .az-sections { list-style: none; margin: 0; padding: 0; }
.az-hit { padding: .9rem 0; border-block-start: 1px solid var(--az-line); }
.az-title { margin: 0; font-size: 1.15rem; line-height: 1.5; }
.az a { color: var(--az-link); text-underline-offset: .2em; }
.az-title a { text-decoration: none; }
.az-title a:hover, .az-sections a:hover { color: var(--az-link-hover); text-decoration: underline; }
.az-heading { margin: .1rem 0 0; font-size: .9375rem; color: var(--az-muted); }
.az-url { margin: .1rem 0 0; font-size: .8125rem; color: #276131; text-align: right; }
/* Each line takes its direction from its own first letter, so a line of code stays LTR. */
.az-excerpt { margin: .35rem 0 0; white-space: pre-line; unicode-bidi: plaintext; }
.az mark { color: inherit; background: var(--az-mark); padding: 0 .1em; border-radius: .15em; }
.az bdi { unicode-bidi: isolate; }
.az-sections { margin-block-start: .6rem; padding-inline-start: .9rem; border-inline-start: 3px solid var(--az-line); }
.az-sections li + li { margin-block-start: .5rem; }
.az-sections .az-excerpt { font-size: .9375rem; }
@media (max-width: 30rem) { .az { font-size: 1rem; } .az-btn { padding-inline: .8rem; } }
`;

const MARKUP = `<div class="az" dir="rtl" lang="ar">
<form class="az-form" role="search" action="" method="get">
<label class="az-label" for="az-q">اكتب سؤالك أو كلمات البحث</label>
<div class="az-row">
<input class="az-input" id="az-q" type="search" name="q" autocomplete="off" spellcheck="false" enterkeyhint="search" aria-describedby="az-hint" placeholder="مثلًا: إزاي أعمل صفحة جديدة؟">
<button class="az-btn" type="submit">بحث</button>
</div>
<p class="az-hint" id="az-hint">تظهر النتائج أثناء الكتابة. اضغط <kbd dir="ltr">Esc</kbd> للمسح.</p>
</form>
<div class="az-results" aria-live="polite"></div>
</div>`;

// Defines askzicoMount(root, opts) in the enclosing scope.
// opts: api (base URL, "" for this origin), k (results wanted), syncUrl (mirror the query in ?q=).
const CLIENT = String.raw`
var AZ_TEXT = {
  none: "لا نتائج. جرّب كلمات أقل أو كلمات أخرى.",
  loading: "جارٍ البحث…",
  degraded: "البحث يعمل الآن بصورة مخففة، فقد تكون النتائج أقل دقة من المعتاد.",
  failed: "تعذّر إتمام البحث: ",
  network: "تعذّر الاتصال بخدمة البحث. تحقّق من الاتصال وحاول مرة أخرى.",
  sections: "أقسام أخرى من الصفحة نفسها"
};

function azCount(n) {
  var d = n.toLocaleString("ar-EG");
  if (n === 1) return "نتيجة واحدة";
  if (n === 2) return "نتيجتان";
  return n <= 10 ? d + " نتائج" : d + " نتيجة";
}

// The server sends excerpts already escaped, with only <mark> and </mark> as tags. Rather than
// trusting that, every piece between those two exact tags is escaped again: "<", ">" and any "&"
// that does not start a character reference. Valid input passes unchanged; nothing else can
// become markup.
function azSafeExcerpt(s) {
  return String(s).split(/(<\/?mark>)/).map(function (part, i) {
    if (i % 2) return part;
    return part
      .replace(/&(?!(?:[a-zA-Z][a-zA-Z0-9]{1,31}|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});)/g, "&amp;")
      .replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }).join("");
}

// Edge punctuation of a Latin run belongs to the surrounding Arabic sentence, unless it is a
// bracket the run itself balances. Returns the run's [start, end] within s.
function azTrimRun(s) {
  var open = "([{", close = ")]}", a = 0, b = s.length;
  function n(ch) { return s.slice(a, b).split(ch).length - 1; }
  for (;;) {
    var c = s[b - 1], i = close.indexOf(c);
    if (/[.,:!?]/.test(c) || (i >= 0 && n(c) > n(open[i]))) b--; else break;
  }
  for (;;) {
    var d = s[a], j = open.indexOf(d);
    if (j >= 0 && n(d) > n(close[j])) a++; else break;
  }
  return [a, b];
}

// Wraps runs of Latin text (code, names, URLs) in <bdi dir="ltr"> so their punctuation stays
// in place inside right-to-left lines.
function azIsolateLatin(node) {
  var doc = node.ownerDocument, walker = doc.createTreeWalker(node, NodeFilter.SHOW_TEXT), texts = [];
  while (walker.nextNode()) if (/[A-Za-z]/.test(walker.currentNode.data)) texts.push(walker.currentNode);
  texts.forEach(function (t) {
    var re = /[!-~]*[A-Za-z][!-~]*(?: +[!-~]+)*/g, s = t.data, frag = doc.createDocumentFragment(), at = 0, m;
    while ((m = re.exec(s))) {
      var r = azTrimRun(m[0]), start = m.index + r[0], end = m.index + r[1];
      if (start > at) frag.appendChild(doc.createTextNode(s.slice(at, start)));
      var b = doc.createElement("bdi");
      b.dir = "ltr";
      b.textContent = s.slice(start, end);
      frag.appendChild(b);
      at = end;
    }
    if (at < s.length) frag.appendChild(doc.createTextNode(s.slice(at)));
    t.parentNode.replaceChild(frag, t);
  });
}

function askzicoMount(root, opts) {
  var form = root.querySelector("form");
  var input = root.querySelector("input[type=search]");
  var out = root.querySelector("[aria-live]");
  var doc = root.ownerDocument;
  var endpoint = String(opts.api || "").replace(/\/+$/, "") + "/search";
  var k = opts.k || 5;
  var timer = 0, ctrl = null, last = "";

  function el(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  // Only http(s) links are rendered; anything else (javascript:, data:) becomes plain text.
  function href(u) {
    try {
      var x = new URL(u, location.href);
      return x.protocol === "http:" || x.protocol === "https:" ? x.href : null;
    } catch (e) { return null; }
  }

  function link(u, text) {
    var h = href(u), a = el(h ? "a" : "span", null, text);
    if (h) a.href = h;
    a.dir = "auto";
    return a;
  }

  function shownUrl(u) {
    var h = href(u);
    if (!h) return "";
    var x = new URL(h), s = x.host + x.pathname + x.search + x.hash;
    try { return decodeURI(s); } catch (e) { return s; }
  }

  function lastHeading(path) {
    return Array.isArray(path) && path.length ? String(path[path.length - 1]) : "";
  }

  function excerpt(html) {
    var p = el("p", "az-excerpt");
    p.innerHTML = azSafeExcerpt(String(html).replace(/\n{2,}/g, "\n").trim());
    azIsolateLatin(p);
    return p;
  }

  function renderHit(h) {
    var li = el("li", "az-hit"), title = String(h.title || h.url || "");
    // h2 never skips a level, whatever heading the host page puts above the results.
    var t = el("h2", "az-title");
    t.appendChild(link(h.section_url || h.url, title));
    li.appendChild(t);
    var heading = lastHeading(h.heading_path);
    if (heading && heading !== title) {
      var hd = el("p", "az-heading", heading);
      hd.dir = "auto";
      li.appendChild(hd);
    }
    var u = shownUrl(h.section_url || h.url);
    if (u) {
      var up = el("p", "az-url", u);
      up.dir = "ltr";
      li.appendChild(up);
    }
    if (h.excerpt) li.appendChild(excerpt(h.excerpt));
    var secs = Array.isArray(h.sections) ? h.sections : [];
    if (secs.length) {
      var ul = el("ul", "az-sections");
      ul.setAttribute("aria-label", AZ_TEXT.sections);
      secs.forEach(function (s) {
        var si = el("li");
        si.appendChild(link(s.section_url || s.url, lastHeading(s.heading_path) || s.title || ""));
        if (s.excerpt) si.appendChild(excerpt(s.excerpt));
        ul.appendChild(si);
      });
      li.appendChild(ul);
    }
    return li;
  }

  function show(nodes) {
    out.removeAttribute("aria-busy");
    out.replaceChildren.apply(out, nodes);
  }

  function render(data) {
    var hits = Array.isArray(data.hits) ? data.hits : [];
    var nodes = [el("p", "az-status", hits.length ? azCount(hits.length) : AZ_TEXT.none)];
    if (data.degraded === true) nodes.push(el("p", "az-note", AZ_TEXT.degraded));
    if (hits.length) {
      var ol = el("ol", "az-list");
      hits.forEach(function (h) { ol.appendChild(renderHit(h)); });
      nodes.push(ol);
    }
    show(nodes);
  }

  function syncUrl(q) {
    if (!opts.syncUrl) return;
    var u = new URL(location.href);
    if (q) u.searchParams.set("q", q); else u.searchParams.delete("q");
    history.replaceState(null, "", u.pathname + u.search + u.hash);
  }

  function abort() {
    if (ctrl) ctrl.abort();
    ctrl = null;
  }

  function clear() {
    clearTimeout(timer);
    abort();
    last = "";
    show([]);
    syncUrl("");
  }

  async function run(force) {
    var q = input.value.trim();
    if (!q) return clear();
    if (!force && q === last) return;
    last = q;
    abort();
    var c = (ctrl = new AbortController());
    if (!out.firstChild) out.appendChild(el("p", "az-status", AZ_TEXT.loading));
    out.setAttribute("aria-busy", "true");
    try {
      var r = await fetch(endpoint + "?q=" + encodeURIComponent(q) + "&k=" + k,
        { signal: c.signal, headers: { accept: "application/json" } });
      var data = await r.json().catch(function () { return null; });
      if (c !== ctrl) return;
      ctrl = null;
      if (r.ok && data) {
        render(data);
        syncUrl(q);
      } else {
        var msg = data && data.error && data.error.message ? String(data.error.message) : "HTTP " + r.status;
        show([el("p", "az-error", AZ_TEXT.failed + msg)]);
        last = "";
      }
    } catch (e) {
      if (c !== ctrl) return;
      ctrl = null;
      last = "";
      show([el("p", "az-error", AZ_TEXT.network)]);
    }
  }

  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(run, 200);
  });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    clearTimeout(timer);
    run(true);
  });
  root.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") return;
    input.value = "";
    clear();
    input.focus();
  });

  if (opts.syncUrl) {
    var q0 = new URLSearchParams(location.search).get("q");
    if (q0) { input.value = q0; run(true); }
  }
}
`;

const PAGE = `<!doctype html>
<html lang="ar" dir="rtl">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>ابحث في الموقع</title>
<style>
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: #1b1b1b; background: #fff; font-family: ${FONT}; }
main { padding: 1.5rem 1rem 3rem; }
h1 { max-width: 48rem; margin: 0 auto 1rem; font-size: 1.6rem; line-height: 1.4; }
${CSS}
</style>
</head>
<body>
<main>
<h1>ابحث في الموقع</h1>
${MARKUP}
</main>
<script>
(function () {
"use strict";
${CLIENT}
var root = document.querySelector(".az");
var meta = document.querySelector('meta[name="askzico-api"]');
askzicoMount(root, { api: root.getAttribute("data-api") || (meta && meta.content) || "", k: 5, syncUrl: true });
})();
</script>
</body>
</html>
`;

const EMBED = `/* askzico search box: <script src=".../embed.js" defer></script><askzico-search></askzico-search> */
(function () {
"use strict";
if (!window.customElements || customElements.get("askzico-search")) return;
// Captured now: document.currentScript is only set while this script runs.
var script = document.currentScript;
var ORIGIN = script && script.src ? new URL(script.src, location.href).origin : location.origin;
var CSS = ${JSON.stringify(CSS + ".az { font-size: 1rem; line-height: 1.65; }\n")};
var MARKUP = ${JSON.stringify(MARKUP)};
${CLIENT}
class AskzicoSearch extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    var shadow = this.attachShadow({ mode: "open" });
    shadow.innerHTML = "<style>" + CSS + "</style>" + MARKUP;
    var k = parseInt(this.getAttribute("k") || "", 10);
    askzicoMount(shadow.querySelector(".az"), {
      api: this.getAttribute("api") || ORIGIN,
      k: k >= 1 && k <= 20 ? k : 5,
      syncUrl: false
    });
  }
}
customElements.define("askzico-search", AskzicoSearch);
})();
`;

/** The HTML document served at `GET /`. */
export function searchPage(): string {
  return PAGE;
}

/** The JavaScript served at `GET /embed.js`: defines the `<askzico-search>` element. */
export function embedScript(): string {
  return EMBED;
}
