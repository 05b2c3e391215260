#!/usr/bin/env python3
"""make docs' last step: every local link of the generated HTML leads somewhere (href, src,
and the data of an <object>, which is how Doxygen shows an SVG image). A link to a
file must name one that exists; a link with #anchor must name an id or name in that page.
Links with a scheme (https:, mailto:) are not followed (the docs are read offline), and
MathJax's own files are not checked.
usage: tools/check_links.py HTML_DIR     exit 0 all good, 1 broken links (listed)
"""
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.anchors = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key):
                self.anchors.add(attrs[key])
        for key in ("href", "src", "data"):  # data: an <object>, Doxygen's SVG images
            if attrs.get(key) is not None:
                self.links.append(attrs[key])


def main():
    root = Path(sys.argv[1])
    pages = {}
    for path in root.rglob("*.html"):
        if "mathjax" in path.relative_to(root).parts:
            continue
        page = Page()
        page.feed(path.read_text(errors="replace"))
        pages[path.resolve()] = page
    broken = []
    for path, page in sorted(pages.items()):
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme == "file":  # an auto-link of text such as `file:line:`
                broken.append(f"{path.relative_to(root.resolve())}: {link} (a file: URL)")
                continue
            if parts.scheme or link.startswith("//"):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            where = path.relative_to(root.resolve())
            if not target.exists():
                broken.append(f"{where}: {link} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                anchors = pages[target].anchors if target in pages else set()
                if parts.fragment not in anchors:
                    broken.append(f"{where}: {link} (no anchor #{parts.fragment} there)")
    for line in broken:
        print(f"broken link: {line}")
    print(f"check_links: {len(pages)} pages, {len(broken)} broken local links")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
