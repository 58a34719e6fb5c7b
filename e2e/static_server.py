"""Static file server for the e2e suite (playwright.config.ts webServer): serves DIR on
127.0.0.1:PORT, sends no-store so every test loads the current build, and logs only error
responses (python's http.server would log every request to stderr).

With `--prefix /some/sub/path/` it serves DIR only under that path (everything else is 404) and
serves index.html as `trunk build --public-url /some/sub/path/` would have written it: trunk's
public URL only changes the asset URLs in index.html (every other file is byte for byte the
same), so the sub-path test reuses the one release build instead of building a second one."""

import functools
import http.server
import os
import sys


def rewrite_index(html: str, directory: str, prefix: str) -> str:
    """index.html for a build with `--public-url prefix`: `/<file>` → `<prefix><file>` for every
    file trunk wrote into DIR (the only URLs trunk's public URL changes)."""
    for name in sorted(os.listdir(directory), key=len, reverse=True):
        for quote in ('"', "'"):
            html = html.replace(f"{quote}/{name}", f"{quote}{prefix}{name}")
    return html


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".svg": "image/svg+xml",
    }
    prefix = "/"

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_request(self, code="-", size="-"):
        if isinstance(code, int) and code >= 400:
            super().log_request(code, size)

    def do_GET(self):
        if self.prefix == "/":
            return super().do_GET()
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path + "/" == self.prefix:
            self.send_response(301)
            self.send_header("Location", self.prefix)
            self.end_headers()
            return None
        if not path.startswith(self.prefix):
            self.send_error(404, "outside the sub-path")
            return None
        rest = path[len(self.prefix):]
        if rest in ("", "index.html"):
            with open(os.path.join(self.directory, "index.html"), encoding="utf-8") as f:
                body = rewrite_index(f.read(), self.directory, self.prefix).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return None
        self.path = "/" + rest
        return super().do_GET()


def main():
    port, directory = int(sys.argv[1]), sys.argv[2]
    prefix = "/"
    if len(sys.argv) > 4 and sys.argv[3] == "--prefix":
        prefix = "/" + sys.argv[4].strip("/") + "/"
    handler = functools.partial(type("H", (Handler,), {"prefix": prefix}), directory=directory)
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    main()
