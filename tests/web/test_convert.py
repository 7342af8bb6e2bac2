"""HTML becomes markdown a model can read: structure kept, links absolute, noise dropped."""

from __future__ import annotations

import pytest

from vaultgate.errors import FetchError
from vaultgate.web.convert import html_to_markdown

BASE = "https://example.com/docs/guide.html"


def test_headings_emphasis_lists_tables_and_code_become_markdown() -> None:
    html = (
        "<h1>Guide</h1><h2>Install</h2><p>Run <b>pip</b> and <em>wait</em>.</p>"
        "<ul><li>one</li><li>two</li></ul>"
        "<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>"
        "<pre><code>pip install vaultgate</code></pre>"
    )

    assert html_to_markdown(html, BASE) == (
        "# Guide\n\n## Install\n\nRun **pip** and *wait*.\n\n- one\n- two\n\n"
        "| k | v |\n| --- | --- |\n| a | 1 |\n\n```\npip install vaultgate\n```\n"
    )


def test_links_and_images_are_made_absolute_against_the_page_url() -> None:
    html = (
        '<a href="intro.html">Intro</a> <a href="/api">API</a> '
        '<a href="https://other.org/x">Other</a> <img src="../img/logo.png" alt="logo">'
    )

    markdown = html_to_markdown(html, BASE)

    assert "[Intro](https://example.com/docs/intro.html)" in markdown
    assert "[API](https://example.com/api)" in markdown
    assert "[Other](https://other.org/x)" in markdown
    assert "![logo](https://example.com/img/logo.png)" in markdown


def test_head_scripts_styles_and_inline_image_data_are_dropped() -> None:
    html = (
        "<html><head><title>T</title><style>body{color:red}</style></head><body>"
        "<script>var secret = 1;</script><noscript>enable js</noscript><p>Body text</p>"
        '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUg" alt="a chart">'
        "</body></html>"
    )

    markdown = html_to_markdown(html, BASE)

    assert "Body text" in markdown
    assert "a chart" in markdown
    for gone in ("color:red", "secret", "enable js", "base64", "iVBOR"):
        assert gone not in markdown


def test_identifiers_are_not_escaped() -> None:
    assert html_to_markdown("<p>call snake_case_name with 2*3</p>", BASE) == (
        "call snake_case_name with 2*3\n"
    )


def test_an_empty_page_is_empty_text() -> None:
    assert html_to_markdown("<html><head><title>x</title></head><body> </body></html>", BASE) == ""


def test_a_page_nested_too_deeply_to_convert_says_to_use_raw() -> None:
    html = "<div>" * 5000 + "deep" + "</div>" * 5000

    with pytest.raises(FetchError, match="raw=true"):
        html_to_markdown(html, BASE)
