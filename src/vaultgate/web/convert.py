"""HTML to markdown with markdownify (on BeautifulSoup): the whole page, links made absolute.

The conversion keeps everything a reader would see (navigation included) and drops what a reader
would not: the head, scripts, styles, embedded frames and inline images given as data: URIs.
It is a pure function; callers run it in a worker thread because a 5 MB page takes a while.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

from bs4 import BeautifulSoup, Tag
from markdownify import ATX, MarkdownConverter

from vaultgate.errors import FetchError

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})

_INVISIBLE = ["head", "script", "style", "noscript", "template", "iframe", "object", "embed"]
_URL_ATTRIBUTES = {"a": "href", "area": "href", "img": "src"}
_BLANK_RUNS = re.compile(r"\n{3,}")


def html_to_markdown(html: str, base_url: str) -> str:
    """Markdown for ``html`` served at ``base_url``; relative links resolved against it."""
    soup = BeautifulSoup(html, "html.parser")
    for element in soup.find_all(_INVISIBLE):
        if isinstance(element, Tag):
            element.decompose()
    for name, attribute in _URL_ATTRIBUTES.items():
        for element in soup.find_all(name):
            if isinstance(element, Tag):
                _absolutise(element, attribute, base_url)
    try:
        markdown = _converter().convert_soup(soup)
    except RecursionError as exc:  # markdownify recurses once per nesting level
        raise FetchError(
            base_url,
            f"{base_url} is nested too deeply to convert to markdown. Call fetch with raw=true "
            "to read its HTML.",
        ) from exc
    markdown = _BLANK_RUNS.sub("\n\n", markdown).strip()
    return f"{markdown}\n" if markdown else ""


def _converter() -> MarkdownConverter:
    # A model reads the markdown, nothing renders it: escaping '_' and '*' would only garble
    # identifiers such as snake_case names.
    return MarkdownConverter(
        heading_style=ATX,
        bullets="-",
        escape_underscores=False,
        escape_asterisks=False,
        escape_misc=False,
    )


def _absolutise(element: Tag, attribute: str, base_url: str) -> None:
    value = element.get(attribute)
    if not isinstance(value, str):
        return
    if element.name == "img" and value.startswith("data:"):
        # An inline image is kilobytes of base64 that no model can read: keep its alt text.
        element.replace_with(str(element.get("alt") or ""))
        return
    element[attribute] = urljoin(base_url, value)
