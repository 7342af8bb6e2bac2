"""The semantic evaluation's corpus: the Python standard library's own docstrings, one note per
module, text no one on the team wrote.

The modules are the public top-level ones and the public modules one level inside their
packages (``urllib.parse``, ``concurrent.futures``). A module's note is its docstring, then a
section per public function and class defined there, with the first paragraph of its
docstring. Each module is imported (with its output discarded), since built-in modules'
docstrings exist only at run time; the few that print or open a browser are skipped. A module
whose note would have fewer than MIN_WORDS words is left out. The notes depend on the Python
that builds them, so the cache key names its version.

    python bench/semantic_corpus.py   # builds (or reuses) the corpus and prints its folder
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import io
import pkgutil
import shutil
import sys
import warnings
from pathlib import Path

VERSION = "1"
CACHE_DIR = Path(__file__).resolve().parent / ".cache"
MIN_WORDS = 30
# Not documentation of what a module does (test suites, the IDE, demos), or unsafe to import.
SKIPPED = frozenset(
    {
        *("antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "test"),
        *("lib2to3", "ensurepip", "pydoc_data", "__future__", "__hello__", "__phello__"),
    }
)
NOT_DESCENDED = frozenset({"encodings", "distutils"})  # codecs by name; a deprecated copy
SKIPPED_INSIDE = frozenset({"test", "tests", "idle_test", "__main__"})


def corpus_folder() -> Path:
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    return CACHE_DIR / f"stdlib-docs-v{VERSION}-py{python}"


def build_corpus() -> Path:
    """The corpus folder, built on first use: one ``<module>.md`` per documented module."""
    folder = corpus_folder()
    done = folder / ".complete"
    if done.exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name in module_names():
        text = module_note(name)
        if text is not None and len(text.split()) >= MIN_WORDS:
            (folder / f"{name}.md").write_text(text, encoding="utf-8")
    done.write_text("", encoding="utf-8")
    return folder


def module_names() -> list[str]:
    """Every public top-level module, and the public modules one level inside its packages."""
    names = []
    for name in sorted(sys.stdlib_module_names):
        if name.startswith("_") or name in SKIPPED:
            continue
        names.append(name)
        if name in NOT_DESCENDED:
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None or not spec.submodule_search_locations:
            continue
        for found in pkgutil.iter_modules(spec.submodule_search_locations):
            if not found.name.startswith("_") and found.name not in SKIPPED_INSIDE:
                names.append(f"{name}.{found.name}")
    return names


def module_note(name: str) -> str | None:
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = importlib.import_module(name)
    except Exception:  # a module this platform cannot load is left out
        return None
    own = {name, "_" + name.rpartition(".")[2], None}  # struct's functions live in _struct
    doc = module.__doc__
    sections = [inspect.cleandoc(doc)] if isinstance(doc, str) and doc.strip() else []
    for member in sorted(getattr(module, "__all__", None) or dir(module)):
        value = getattr(module, str(member), None)
        if str(member).startswith("_") or not callable(value):
            continue
        if getattr(value, "__module__", None) not in own:
            continue
        text = _first_paragraph(getattr(value, "__doc__", None))
        if text:
            sections.append(f"## {member}\n\n{text}")
    return "\n\n".join(sections).strip() + "\n" if sections else None


def _first_paragraph(doc: str | None) -> str:
    if not isinstance(doc, str) or not doc.strip():
        return ""
    return inspect.cleandoc(doc).split("\n\n", 1)[0].strip()


if __name__ == "__main__":
    folder = build_corpus()
    notes = sorted(folder.glob("*.md"))
    words = sorted(len(p.read_text(encoding="utf-8").split()) for p in notes)
    print(f"{folder}: {len(notes)} notes, median {words[len(words) // 2]} words")
