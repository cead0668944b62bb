// Browser check of the search UI served by a running Worker: the page at `/` (desktop and
// 360 px wide) and the `<askzico-search>` element from `/embed.js` on a page of another origin.
//
//   node worker/test/browser.mjs http://127.0.0.1:8787
//
// Env: ASKZICO_WORKER_DEPS (node_modules folder holding playwright-core and axe-core, required),
// ASKZICO_BROWSER_QUESTION (question to type, default «ازاي اعمل صفحة»),
// ASKZICO_SCREENSHOTS (screenshot folder, default target/ci-artifacts).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';

const WAIT = 15_000;

function die(msg) {
  console.error(`browser test failed: ${msg}`);
  process.exit(1);
}

const base = (process.argv[2] || '').replace(/\/+$/, '');
if (!/^https?:\/\//.test(base)) die('usage: node browser.mjs <base URL of the running Worker>');
if (!process.env.ASKZICO_WORKER_DEPS) die('ASKZICO_WORKER_DEPS must name the node_modules folder holding playwright-core and axe-core');
const require = createRequire(path.join(process.env.ASKZICO_WORKER_DEPS, 'x.js'));
const { chromium } = require('playwright-core');
const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const question = process.env.ASKZICO_BROWSER_QUESTION || 'ازاي اعمل صفحة';
const shots = path.resolve(process.env.ASKZICO_SCREENSHOTS || 'target/ci-artifacts');

const LIVE = '[aria-live="polite"]';
const TITLE_LINKS = `${LIVE} li a[href]`;

// Records what the page reports, to explain a failure.
function watch(page) {
  const log = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') log.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => log.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => log.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  return log;
}

async function withLog(log, what, fn) {
  try {
    return await fn();
  } catch (e) {
    const extra = log.length ? `\n  browser said:\n  ${log.join('\n  ')}` : '';
    throw new Error(`${what}: ${e.message.split('\n')[0]}${extra}`);
  }
}

// Presses Tab until the focused element (looking through shadow roots) matches `selector`.
async function tabTo(page, selector, max = 40) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const hit = await page.evaluate((sel) => {
      let a = document.activeElement;
      while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
      return !!a?.matches(sel);
    }, selector);
    if (hit) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

async function screenshot(page, name) {
  fs.mkdirSync(shots, { recursive: true });
  const file = path.join(shots, name);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
}

async function axe(page, label) {
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(() => axe.run());
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  for (const v of result.violations) {
    console.log(`axe ${label}: ${v.impact} ${v.id} (${v.nodes.length}): ${v.help}`);
  }
  assert.equal(bad.length, 0, `axe found serious/critical violations on ${label}: ` +
    bad.map((v) => `${v.id} [${v.impact}] ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('; '));
  console.log(`axe ${label}: ${result.violations.length} violations, none serious or critical (${result.passes.length} rules passed)`);
}

// Types the question by keyboard and checks the rendered results. `scope` is the selector
// prefix of the widget ('' for the page, 'askzico-search' for the element; Playwright's
// CSS selectors pierce open shadow roots).
async function search(page, scope, expected, label) {
  await tabTo(page, `input[type="search"]`);
  await page.keyboard.type(question, { delay: 15 });
  const links = page.locator(`${scope} ${TITLE_LINKS}`.trim());
  const error = page.locator(`${scope} ${LIVE} .az-error`.trim());
  await links.first().or(error).first().waitFor({ state: 'visible', timeout: WAIT });
  if (await error.count()) throw new Error(`${label}: the page shows an error: ${await error.first().textContent()}`);
  await page.waitForFunction((sel) => {
    const host = sel ? document.querySelector(sel)?.shadowRoot : document;
    const live = host?.querySelector('[aria-live="polite"]');
    return live && live.getAttribute('aria-busy') !== 'true';
  }, scope, { timeout: WAIT });

  const info = await links.evaluateAll((as) => as.map((a) => {
    const li = a.closest('li');
    const live = a.closest('[aria-live="polite"]');
    return {
      href: a.href,
      tag: a.tagName,
      marks: li.querySelectorAll('.az-excerpt mark').length,
      dir: getComputedStyle(li).direction,
      liveDir: getComputedStyle(live).direction,
    };
  }));
  assert.ok(info.length >= 1, `${label}: no result links`);
  assert.ok(info.some((r) => r.marks > 0), `${label}: no result has a <mark> in its excerpt`);
  for (const r of info) {
    assert.equal(r.tag, 'A');
    assert.ok(expected.has(r.href), `${label}: link ${r.href} is not a section_url of /search`);
    assert.equal(r.dir, 'rtl', `${label}: result direction is ${r.dir}`);
    assert.equal(r.liveDir, 'rtl', `${label}: results region direction is ${r.liveDir}`);
  }
  console.log(`${label}: ${info.length} links, ${info.filter((r) => r.marks).length} with <mark>, direction rtl`);
  return info;
}

// Tabs from the search box to the first result link and follows it with Enter. The target is
// answered locally so the test never leaves the machine.
async function followLink(page, expected, label) {
  await page.locator('input[type="search"]').focus();
  await tabTo(page, `${LIVE} a[href]`);
  const href = await page.evaluate(() => document.activeElement.href);
  assert.ok(expected.has(href), `${label}: focused link ${href} is not a section_url`);
  const target = new URL(href);
  assert.match(target.protocol, /^https?:$/);
  const url = target.origin + target.pathname + target.search;
  await page.route((u) => u.origin + u.pathname + u.search === url, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>target</title>' }));
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.href === href, { timeout: WAIT });
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  console.log(`${label}: Tab reached ${href} and Enter followed it`);
}

// Answers /search with hostile or failing payloads to check escaping and error display.
async function robustness(page) {
  await page.goto(`${base}/`);
  await page.route(/\/search\?/, (route) => route.fulfill({
    status: 200,
    contentType: 'application/json',
    body: JSON.stringify({
      hits: [{
        rank: 1, title: '<img src=x onerror="window.__pwned=1">', section_url: 'javascript:window.__pwned=1',
        heading_path: ['عنوان'], sections: [],
        excerpt: '&lt;b&gt;نص&lt;/b&gt; <mark>كلمة</mark> <img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script> npm run build;',
      }],
      degraded: true, reasons: ['test'], timings: {},
    }),
  }));
  const input = page.locator('input[type="search"]');
  await input.fill('اختبار');
  await page.locator(`${LIVE} .az-note`).waitFor({ timeout: WAIT });
  const r = await page.evaluate((sel) => {
    const live = document.querySelector(sel);
    return {
      pwned: window.__pwned, imgs: live.querySelectorAll('img, script, b').length,
      marks: live.querySelectorAll('mark').length, links: live.querySelectorAll('a').length, text: live.textContent,
    };
  }, LIVE);
  assert.equal(r.pwned, undefined, 'hostile excerpt ran script');
  assert.equal(r.imgs, 0, 'hostile excerpt produced elements');
  assert.equal(r.marks, 1, 'the one <mark> of the hostile excerpt was not kept');
  assert.equal(r.links, 0, 'a javascript: section_url became a link');
  assert.ok(r.text.includes('<b>نص</b>') && r.text.includes('<img src=x'), 'escaped text was not shown literally');

  await page.unrouteAll({ behavior: 'ignoreErrors' });
  await page.route(/\/search\?/, (route) => route.fulfill({
    status: 400, contentType: 'application/json',
    body: JSON.stringify({ error: { code: 'bad-request', message: '<i>سؤال غير صالح</i>' } }),
  }));
  await input.fill('خطأ');
  const err = page.locator(`${LIVE} .az-error`);
  await err.waitFor({ timeout: WAIT });
  assert.ok((await err.textContent()).includes('<i>سؤال غير صالح</i>'), 'error message not shown as text');
  assert.equal(await page.locator(`${LIVE} i`).count(), 0, 'error message rendered as HTML');

  await input.focus();
  await page.keyboard.press('Escape');
  assert.equal(await input.inputValue(), '', 'Escape did not clear the box');
  assert.equal(await page.locator(`${LIVE} *`).count(), 0, 'Escape did not clear the results');
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  console.log('robustness: hostile excerpt escaped, degraded note shown, error shown as text, Escape clears');
}

// A page on another origin that embeds the element, as a site owner would.
function hostPage() {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Embed host</title></head>
<body><main><h1>Host site</h1><p>Search this site:</p>
<script src="${base}/embed.js" defer></script><askzico-search k="5"></askzico-search></main></body></html>`;
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function main() {
  const res = await fetch(`${base}/search?q=${encodeURIComponent(question)}&k=5`).catch((e) => {
    throw new Error(`cannot reach ${base}/search: ${e.cause?.message ?? e.message}`);
  });
  assert.equal(res.status, 200, `GET /search answered ${res.status}`);
  const body = await res.json();
  assert.ok(Array.isArray(body.hits) && body.hits.length > 0, `GET /search found nothing for «${question}»`);
  const expected = new Set();
  for (const h of body.hits) {
    expected.add(new URL(h.section_url, base).href);
    for (const s of h.sections ?? []) expected.add(new URL(s.section_url, base).href);
  }

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  let page;
  try {
    for (const [label, viewport, mobile] of [['desktop', { width: 1280, height: 800 }, false], ['360px', { width: 360, height: 740 }, true]]) {
      const ctx = await browser.newContext({ viewport, isMobile: mobile, hasTouch: mobile, locale: 'ar-EG' });
      page = await ctx.newPage();
      const log = watch(page);
      await withLog(log, label, async () => {
        await page.goto(`${base}/`);
        const root = await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]);
        assert.deepEqual(root, ['ar', 'rtl'], `<html> has lang/dir ${root}`);
        await search(page, '', expected, label);
        await axe(page, label);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= viewport.width, `${label}: page is ${width}px wide, scrolls horizontally`);
        await screenshot(page, `search-${label}.png`);
        await followLink(page, expected, label);
        if (!mobile) await robustness(page);
      });
      await ctx.close();
    }

    const server = await hostPage();
    const host = `http://127.0.0.1:${server.address().port}/`;
    const ctx = await browser.newContext({ viewport: { width: 800, height: 800 }, locale: 'ar-EG' });
    page = await ctx.newPage();
    const log = watch(page);
    try {
      await withLog(log, `embed (host page ${host}; /search must allow cross-origin requests)`, async () => {
        await page.goto(host);
        await page.waitForFunction(() => customElements.get('askzico-search') && document.querySelector('askzico-search').shadowRoot, null, { timeout: WAIT });
        await search(page, 'askzico-search', expected, 'embed');
        await axe(page, 'embed');
        await screenshot(page, 'search-embed.png');
      });
    } finally {
      server.close();
    }
    await ctx.close();
  } catch (e) {
    if (page && !page.isClosed()) await screenshot(page, 'search-failure.png').catch(() => {});
    throw e;
  } finally {
    await browser.close();
  }
  console.log('browser test passed');
}

main().catch((e) => die(e.message));
