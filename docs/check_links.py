#!/usr/bin/env python3
"""Dead links of the documentation site (ctest docs.site, after Doxygen): every href and src of
every HTML page under SITE_DIR that points into the site must name a file that exists and, with
a #fragment, an element of that file with that id (or an <a name>). Links out of the site
(http:, https:, mailto:) are listed, not followed: CI has no network.

    docs/check_links.py SITE_DIR      exit status 1 when a link leads nowhere
"""
import html.parser
import os
import sys
import urllib.parse


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []   # (attribute value, line)
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in ("href", "src"):
                self.links.append((value, self.getpos()[0]))
            elif name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_links.py SITE_DIR")
    site = os.path.abspath(sys.argv[1])
    pages = {}
    for folder, _, files in os.walk(site):
        for f in files:
            if f.endswith(".html"):
                path = os.path.join(folder, f)
                page = Page()
                with open(path, encoding="utf-8", errors="replace") as handle:
                    page.feed(handle.read())
                pages[path] = page
    dead, external, checked = [], set(), 0
    for path, page in sorted(pages.items()):
        for value, line in page.links:
            url = urllib.parse.urlsplit(value)
            if url.scheme in ("http", "https", "mailto", "ftp"):
                external.add(value)
                continue
            if url.scheme in ("javascript", "data") or value == "":
                continue
            checked += 1
            target = path if url.path == "" else os.path.normpath(
                os.path.join(os.path.dirname(path), urllib.parse.unquote(url.path)))
            where = f"{os.path.relpath(path, site)}:{line}: {value}"
            if not target.startswith(site):
                dead.append(f"{where}: leaves the site")
            elif not os.path.exists(target):
                dead.append(f"{where}: no file {os.path.relpath(target, site)}")
            elif url.fragment and target.endswith(".html"):
                ids = pages[target].ids if target in pages else set()
                if url.fragment not in ids:
                    dead.append(f"{where}: no #{url.fragment} in {os.path.relpath(target, site)}")
    for d in dead:
        print("dead link: " + d)
    print(f"check_links: {len(pages)} pages, {checked} links into the site, {len(dead)} dead; "
          f"{len(external)} links out of the site, not followed: " + ", ".join(sorted(external)[:20]))
    sys.exit(1 if dead else 0)


if __name__ == "__main__":
    main()
