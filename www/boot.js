// Runs before the wasm app (a classic script in <head>):
// 1. applies the stored theme before the first paint (app/src/theme.rs owns it afterwards);
// 2. if the app fails to load or start (wasm fetch/instantiate error, a throw before it mounts),
//    shows the same error banner that the Rust panic hook shows (app/src/panic_banner.rs), so the
//    page is never blank. Once trunk reports the app started, Rust's panic hook takes over.
(function () {
  "use strict";
  try {
    var theme = localStorage.getItem("buddyscope-theme");
    if (theme === "light" || theme === "dark") {
      document.documentElement.setAttribute("data-theme", theme);
    }
  } catch (e) {
    // localStorage can be unavailable (privacy settings); the OS preference applies.
  }

  var started = false;
  addEventListener("TrunkApplicationStarted", function () {
    started = true;
  });

  function fail(message) {
    if (started || document.querySelector('[data-testid="error-banner"]')) return;
    var banner = document.createElement("div");
    banner.setAttribute("data-testid", "error-banner");
    banner.setAttribute("role", "alert");
    banner.className = "error-banner";
    var title = document.createElement("strong");
    title.textContent = "buddyscope failed to start. The error was:";
    var pre = document.createElement("pre");
    pre.className = "error-banner__message";
    pre.setAttribute("data-testid", "error-message");
    pre.textContent = message;
    var button = document.createElement("button");
    button.type = "button";
    button.setAttribute("data-testid", "error-reload");
    button.textContent = "Reload";
    button.addEventListener("click", function () {
      location.reload();
    });
    banner.append(title, pre, button);
    (document.body || document.documentElement).prepend(banner);
  }

  addEventListener("error", function (event) {
    fail(String(event.message || event.error || "unknown error"));
  });
  addEventListener("unhandledrejection", function (event) {
    fail(String(event.reason));
  });

  // 3. registers the offline service worker (www/sw.js). It sits next to this script (trunk
  //    serves both from the public URL), so under a sub-path its scope is that sub-path.
  var here = document.currentScript && document.currentScript.src;
  if (here && "serviceWorker" in navigator && /^https?:$/.test(location.protocol)) {
    addEventListener("load", function () {
      navigator.serviceWorker.register(new URL("sw.js", here).href).catch(function () {
        // No service worker (private mode, an insecure origin): the app still runs online.
      });
    });
  }
})();
