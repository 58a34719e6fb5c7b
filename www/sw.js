// buddyscope's service worker: a page opened once keeps working offline.
//
// Scope: the folder this file is served from (trunk copies it next to index.html, so under
// `--public-url /some/sub/path/` the scope is that sub-path and nothing else on the host).
//
// Never stale code: index.html (every navigation) is network-first, so an online visit always
// gets the newest build; the cache is only the fallback offline. Every other asset trunk emits
// has a content hash in its name, so serving it cache-first can never serve old code under a
// new name. Each time a fresh index.html arrives, the shell is re-cached from it and entries it
// no longer references (an older build's wasm, js, css) are deleted: the cache holds one build.
// CACHE is bumped only if this file's caching scheme itself changes.
"use strict";

const CACHE = "buddyscope-shell-v1";
const SCOPE = self.registration.scope;
const INDEX = new URL("./", SCOPE).href;
// Files that are not referenced from index.html but belong to the offline shell. They have no
// content hash in their name, so like index.html they are network-first and re-fetched with
// every fresh shell (the run worker's script must match the build's wasm).
const EXTRA_PAGES = ["embed-example.html", "run-worker.js"];
const EXTRA = new Set(EXTRA_PAGES.map((p) => new URL(p, SCOPE).href));

// The same-origin asset URLs an index.html references (links, scripts, the wasm in trunk's
// inline loader), absolute.
function assetsOf(html) {
  const urls = new Set();
  const re = /["']([^"'\s<>]+\.(?:js|wasm|css|svg|png|ico|json|html))["']/g;
  let m;
  while ((m = re.exec(html))) {
    const u = new URL(m[1], INDEX);
    if (u.origin === self.location.origin && u.href.startsWith(SCOPE)) urls.add(u.href);
  }
  return urls;
}

// Caches index.html (already fetched) and everything it references; drops what it does not.
async function refreshShell(indexResponse) {
  const cache = await caches.open(CACHE);
  const html = await indexResponse.clone().text();
  await cache.put(INDEX, indexResponse);
  const keep = assetsOf(html);
  for (const p of EXTRA_PAGES) keep.add(new URL(p, SCOPE).href);
  await Promise.all(
    [...keep].map(async (url) => {
      if (!EXTRA.has(url) && (await cache.match(url))) return;
      try {
        const r = await fetch(url, { cache: "no-store" });
        if (r.ok) await cache.put(url, r);
      } catch (e) {
        // Offline while refreshing: keep what is cached.
      }
    }),
  );
  for (const req of await cache.keys()) {
    if (req.url !== INDEX && !keep.has(req.url)) await cache.delete(req);
  }
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    fetch(INDEX, { cache: "no-store" })
      .then((r) => (r.ok ? refreshShell(r) : undefined))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("buddyscope-") && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || !req.url.startsWith(SCOPE)) return;
  // The page itself (any query: ?scenario=…, ?embed=1): network first, cached copy offline.
  const key = url.origin + url.pathname;
  if (req.mode === "navigate" || key === INDEX || EXTRA.has(key)) {
    event.respondWith(
      (async () => {
        try {
          const r = await fetch(req, { cache: "no-store" });
          if (r.ok && key === INDEX) event.waitUntil(refreshShell(r.clone()));
          else if (r.ok) {
            // Cloned now: the body is read by the page before the cache would get to it.
            const copy = r.clone();
            event.waitUntil(caches.open(CACHE).then((c) => c.put(key, copy)));
          }
          return r;
        } catch (e) {
          const cache = await caches.open(CACHE);
          return (await cache.match(key)) || (await cache.match(INDEX)) || Response.error();
        }
      })(),
    );
    return;
  }
  // Hashed assets: cache first.
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const hit = await cache.match(req, { ignoreSearch: true });
      if (hit) return hit;
      const r = await fetch(req);
      if (r.ok && r.type === "basic") event.waitUntil(cache.put(req, r.clone()));
      return r;
    })(),
  );
});
