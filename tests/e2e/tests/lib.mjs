// Shared set-up of the browser tests: one chromium, a context per person, screenshots of every
// open page when a test fails, and a few helpers that read the page the way a person would.

import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BASE = process.env.BADUK_URL || 'http://127.0.0.1:8080';
const here = path.dirname(fileURLToPath(import.meta.url));
export const ARTIFACTS = path.resolve(here, '..', 'artifacts');
export const DOCS_DIR = process.env.DOCS_SHOTS ? process.env.DOCS_DIR || path.resolve(here, '..', '..', '..', 'docs', 'img') : null;
fs.mkdirSync(ARTIFACTS, { recursive: true });

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ARGS });
}

/** A person: a fresh context (own local storage) and one page; console errors are kept. */
export async function person(browser, name, opts = {}) {
  const context = await browser.newContext({ viewport: opts.viewport || { width: 1280, height: 860 }, locale: opts.locale || 'en-US', hasTouch: !!opts.touch, isMobile: !!opts.touch });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/WebSocket|ERR_CONNECTION|Failed to load resource/.test(m.text())) page.errors.push(m.text());
  });
  page.person = name;
  // The server's Content-Security-Policy (script-src 'self', no 'unsafe-eval') refuses
  // Playwright's waitForFunction, which builds its predicate with `new Function` inside the
  // page; `page.evaluate` goes through the debugger protocol, which the policy does not
  // govern. So every test keeps the policy on (a page it breaks fails them) and polls the
  // predicate with evaluate instead.
  page.waitForFunction = async (fn, arg, opts = {}) => {
    const timeout = opts?.timeout ?? 15000;
    const end = Date.now() + timeout;
    for (;;) {
      let v;
      try {
        v = await page.evaluate(fn, arg);
      } catch (e) {
        if (!/context was destroyed|navigat/i.test(String(e))) throw e;
      }
      if (v) return v;
      if (Date.now() > end) throw new Error(`page.waitForFunction: timeout ${timeout}ms exceeded (${String(fn).slice(0, 120)})`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  return { context, page };
}

/** Runs fn; on failure saves a screenshot of each page under artifacts/ and rethrows. */
export async function shots(t, pages, fn) {
  try {
    return await fn();
  } catch (e) {
    const base = t.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    for (const p of pages) {
      try {
        await p.screenshot({ path: path.join(ARTIFACTS, `FAIL-${base}-${p.person || 'page'}.png`), fullPage: true });
      } catch {
        /* page gone */
      }
    }
    throw e;
  }
}

/** A screenshot in artifacts/; with {docs: true} also kept for the README (when DOCS_SHOTS=1). */
export async function docShot(page, name, opts = {}) {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: !!opts.fullPage });
  if (DOCS_DIR && opts.docs) {
    fs.mkdirSync(DOCS_DIR, { recursive: true });
    fs.copyFileSync(file, path.join(DOCS_DIR, `${name}.png`));
  }
}

export async function version(page) {
  return Number(await page.getAttribute('body', 'data-version'));
}

/** Waits until the page shows a state newer than `v`. */
export async function newerThan(page, v, timeout = 15000) {
  await page.waitForFunction((v) => Number(document.body.dataset.version) > v, v, { timeout });
}

/** Where a Go point (D4) is on the screen, as {x, y} in CSS pixels. */
export async function pointAt(page, name) {
  return page.evaluate((name) => {
    const svg = document.querySelector('svg.goban');
    const st = window.__baduk.page.state;
    const x = st.columns.indexOf(name[0]);
    const y = st.size.rows - parseInt(name.slice(1), 10);
    const m = svg.getScreenCTM();
    const pt = svg.createSVGPoint();
    pt.x = x;
    pt.y = y;
    const p = pt.matrixTransform(m);
    return { x: p.x, y: p.y };
  }, name);
}

/** Clicks a Go point by its name (D4) on the page's goban. */
export async function clickPoint(page, name) {
  const box = await pointAt(page, name);
  await page.mouse.click(box.x, box.y);
}

/** Plays a Go move by clicking and waits for the page to show it. */
export async function playPoint(page, name) {
  const v = await version(page);
  await clickPoint(page, name);
  await newerThan(page, v);
}

export async function api(method, p, body, token) {
  const res = await fetch(BASE + p, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let data = null;
  try {
    data = JSON.parse(text);
  } catch {
    data = text;
  }
  return { status: res.status, data };
}

/** Keeps a measured figure in artifacts/metrics.json (each test file runs in its own process). */
export function record(name, value) {
  const file = path.join(ARTIFACTS, 'metrics.json');
  let all = {};
  try {
    all = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    all = {};
  }
  all[name] = value;
  fs.writeFileSync(file, JSON.stringify(all, null, 2));
  console.log(`# ${name}: ${typeof value === 'object' ? JSON.stringify(value) : value}`);
}

/** Resigns from the game page (the button asks once more; a redraw in between asks again). */
export async function resign(page) {
  for (let i = 0; i < 6; i++) {
    if ((await page.getAttribute('body', 'data-status')) === 'finished') return;
    try {
      await page.locator('[data-action=resign]').click({ timeout: 2000 });
      await page.locator('[data-action=resign].danger').click({ timeout: 2000 });
    } catch {
      /* redrawn in between */
    }
    try {
      await page.waitForSelector('body[data-status=finished]', { timeout: 3000 });
      return;
    } catch {
      /* once more */
    }
  }
  await page.waitForSelector('body[data-status=finished]');
}

/** The seat this page's account holds in the game shown. */
export async function mySeat(page) {
  await page.waitForSelector('.player .kind >> text=You');
  return page.evaluate(() => [...document.querySelectorAll('.player')].find((p) => p.querySelector('.kind')?.textContent === 'You')?.dataset.seat);
}

/** Posts a seat's action through the API, waiting out a 429. */
export async function act(id, tok, action) {
  for (;;) {
    const r = await api('POST', `/api/games/${id}/actions`, { action }, tok);
    if (r.status !== 429) return r;
    await new Promise((ok) => setTimeout(ok, 1000 * (r.data?.retry_after || 1)));
  }
}

/** Creates a Go game through the API (`spec` beside `game: 'go'`); its answer, seats' tokens included. */
export async function createGo(spec) {
  const g = await api('POST', '/api/games', { game: 'go', ...spec });
  if (g.status !== 201) throw new Error(`create: ${g.status} ${JSON.stringify(g.data)}`);
  return g.data;
}

/** Signs up on /login as `name` with `password` and waits for the lobby to name the account. */
export async function signUp(page, name, password) {
  await page.goto(`${BASE}/login?mode=signup`);
  await page.waitForSelector('body[data-account]');
  await page.fill('input[name=username]', name);
  await page.fill('input[name=password]', password);
  await Promise.all([page.waitForURL(`${BASE}/`), page.click('#auth-btn')]);
  await page.waitForSelector(`#account [data-me="${name}"]`);
}
