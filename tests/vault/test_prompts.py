"""Prompt notes without MCP: names, tags, placeholders, rendering, collisions, bounds."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from vaultgate.backend import Note
from vaultgate.config import DEFAULT_PROMPTS_FOLDER, Settings
from vaultgate.errors import AccessDenied, ConfigError, InvalidArgument, NotFound
from vaultgate.vault import prompts
from vaultgate.vault.listing import VaultLister
from vaultgate.vault.prompts import (
    MAX_DESCRIPTION_LENGTH,
    MAX_NAME_LENGTH,
    LeftOut,
    PromptArgument,
    PromptLibrary,
    PromptNote,
    build_catalogue,
    describe_note,
    description_of,
    is_prompt_note,
    parse_arguments,
    prompt_name,
    render,
)

TAGGED = "---\ntags: [mcp-tools-prompt]\ndescription: Sum up a meeting\n---\n"


def prompt_of(path: str, text: str) -> PromptNote:
    described = describe_note(path, text)
    assert isinstance(described, PromptNote)
    return described


@pytest.mark.parametrize(
    ("stem", "name"),
    [
        pytest.param("Summarize", "Summarize", id="plain"),
        pytest.param("Summarize meeting 📝", "Summarize-meeting", id="spaces-and-emoji"),
        pytest.param("日本語メモ", "日本語メモ", id="cjk-kept"),
        pytest.param("C# & .NET tips", "C-.NET-tips", id="hash-ampersand"),
        pytest.param("100% done #1", "100-done-1", id="percent"),
        pytest.param("Résumé", "Résumé", id="accents"),
        pytest.param("Re\u0301sume\u0301", "Résumé", id="decomposed-is-nfc"),
        pytest.param("🚀 🎉", "", id="nothing-left"),
        pytest.param("---", "", id="no-letter-or-digit"),
    ],
)
def test_a_prompt_is_named_after_its_note_in_characters_every_host_can_use(
    stem: str, name: str
) -> None:
    assert prompt_name(stem) == name


def test_a_long_name_is_cut_to_the_limit() -> None:
    assert prompt_name("a" * 300) == "a" * MAX_NAME_LENGTH


@pytest.mark.parametrize(
    ("text", "tagged"),
    [
        pytest.param(TAGGED + "Body", True, id="frontmatter-list"),
        pytest.param("---\ntags: mcp-tools-prompt, other\n---\nBody", True, id="fm-string"),
        pytest.param("---\ntags: ['#mcp-tools-prompt']\n---\nBody", True, id="fm-with-hash"),
        pytest.param("Body\n\n#mcp-tools-prompt\n", True, id="inline"),
        pytest.param("Body #MCP-Tools-Prompt here", True, id="any-case"),
        pytest.param("Body\n```\n#mcp-tools-prompt\n```\n", False, id="in-code"),
        pytest.param("Body `#mcp-tools-prompt`", False, id="in-code-span"),
        pytest.param("Body #mcp-tools-prompt/draft", False, id="nested-tag"),
        pytest.param("Body #mcp-tools-prompts", False, id="longer-tag"),
        pytest.param("Body mcp-tools-prompt", False, id="no-hash"),
    ],
)
def test_a_prompt_note_is_tagged_mcp_tools_prompt(text: str, tagged: bool) -> None:
    assert is_prompt_note(text) is tagged


def test_placeholders_are_arguments_in_order_of_first_use() -> None:
    body = "Write {{topic}} for {{ audience | the team }} in {{tone|}}; again {{topic}}."

    assert parse_arguments(body) == (
        PromptArgument("topic", required=True, default=None),
        PromptArgument("audience", required=False, default="the team"),
        PromptArgument("tone", required=False, default=""),
    )


def test_an_argument_without_a_default_somewhere_is_required() -> None:
    (argument,) = parse_arguments("{{who|me}} and {{who}}")

    assert argument.required
    assert argument.default == "me"


def test_only_names_of_letters_digits_underscores_and_dashes_are_placeholders() -> None:
    body = "{{date:YYYY-MM-DD}} {{two words}} {{}} {{名前}} {{snake_case-1}}"

    assert [a.name for a in parse_arguments(body)] == ["名前", "snake_case-1"]


def test_the_description_comes_from_frontmatter_and_is_bounded() -> None:
    assert description_of({"description": "  Sum it  "}) == "Sum it"
    assert description_of({"description": 42}) == "42"
    assert description_of({"description": ["a"]}) is None
    assert description_of({"description": True}) is None
    assert description_of({}) is None
    long = description_of({"description": "x" * 5000})
    assert long is not None
    assert len(long) == MAX_DESCRIPTION_LENGTH


def test_a_note_describes_its_prompt() -> None:
    prompt = prompt_of("Prompts/Team/Summarize meeting 📝.md", TAGGED + "Sum up {{topic}}.")

    assert prompt == PromptNote(
        name="Summarize-meeting",
        title="Summarize meeting 📝",
        description="Sum up a meeting",
        arguments=(PromptArgument("topic", required=True, default=None),),
        path="Prompts/Team/Summarize meeting 📝.md",
    )


def test_an_untagged_note_is_no_prompt_and_an_unnameable_one_is_left_out() -> None:
    assert describe_note("Prompts/plain.md", "Just {{text}}") is None
    left = describe_note("Prompts/🚀.md", "#mcp-tools-prompt")
    assert isinstance(left, LeftOut)
    assert "rename" in left.reason


def test_rendering_fills_placeholders_and_drops_the_frontmatter_and_the_marker() -> None:
    text = (
        TAGGED
        + "#mcp-tools-prompt\nSummarize {{topic}} for {{audience|the team}}{{suffix|}}.\n"
        + "Keep #mcp-tools-prompt out, keep #other.\n"
    )
    prompt = prompt_of("Prompts/s.md", text)

    rendered = render(prompt, text, {"topic": "Q3 🚀 {{audience}}"})

    assert rendered.text == ("Summarize Q3 🚀 {{audience}} for the team.\nKeep  out, keep #other.")
    assert not rendered.cut


def test_a_missing_required_argument_says_which_and_how_to_make_it_optional() -> None:
    text = TAGGED + "Summarize {{topic}} in {{tone|short}} form."
    prompt = prompt_of("Prompts/Summarize 100%.md", text)

    with pytest.raises(InvalidArgument) as caught:
        render(prompt, text, {"tone": "long"})

    message = str(caught.value)
    assert "'topic'" in message
    assert "'Prompts/Summarize 100%.md'" in message
    assert "{{topic|default}}" in message
    assert "topic (required), tone (optional)" in message


def test_an_argument_the_prompt_does_not_take_is_refused() -> None:
    text = TAGGED + "Hello {{who}}"
    prompt = prompt_of("Prompts/hello.md", text)

    with pytest.raises(InvalidArgument, match=r"no argument 'whom'.*who \(required\)"):
        render(prompt, text, {"who": "x", "whom": "y"})


def test_a_long_note_is_rendered_up_to_the_limit_and_says_where_to_read_on() -> None:
    head = TAGGED + "Intro {{who}}\n"
    text = head + "x" * 80 + " {{who}} tail " + "y" * 200
    prompt = prompt_of("Prompts/Long 日本.md", text)

    rendered = render(prompt, text, {"who": "Ana"}, limit=100)

    body_cut = len("Intro {{who}}\n") + 81  # before the placeholder that straddles 100
    assert rendered.cut
    assert rendered.text.startswith("Intro Ana\n" + "x" * 80 + "\n\n[This prompt is")
    assert f"first {body_cut} of" in rendered.text
    assert (
        f'get_vault_file(filename="Prompts/Long 日本.md", startIndex={len(TAGGED) + body_cut})'
        in rendered.text
    )


def test_two_notes_with_one_name_keep_the_one_nearest_the_folder() -> None:
    described = [
        prompt_of("Prompts/Team/Plan.md", "#mcp-tools-prompt deep"),
        prompt_of("Prompts/Plan.md", "#mcp-tools-prompt top"),
        prompt_of("Prompts/a b.md", "#mcp-tools-prompt"),
        prompt_of("Prompts/a-b.md", "#mcp-tools-prompt"),
        LeftOut("Prompts/🚀.md", "", "no name"),
    ]

    catalogue = build_catalogue(described)

    assert [(p.name, p.path) for p in catalogue.prompts] == [
        ("a-b", "Prompts/a b.md"),
        ("Plan", "Prompts/Plan.md"),
    ]
    assert [(lo.path, lo.reason) for lo in catalogue.left_out] == [
        ("Prompts/Team/Plan.md", "the name 'Plan' is taken by 'Prompts/Plan.md'"),
        ("Prompts/a-b.md", "the name 'a-b' is taken by 'Prompts/a b.md'"),
        ("Prompts/🚀.md", "no name"),
    ]


@pytest.mark.parametrize(
    ("value", "folder"),
    [
        pytest.param(None, DEFAULT_PROMPTS_FOLDER, id="default"),
        pytest.param("", DEFAULT_PROMPTS_FOLDER, id="empty-is-default"),
        pytest.param("Assistant/Prompts", "Assistant/Prompts/", id="nested"),
        pytest.param("Prompts 🚀/", "Prompts 🚀/", id="emoji"),
        pytest.param("/", "", id="root"),
    ],
)
def test_the_prompts_folder_setting(value: str | None, folder: str) -> None:
    env = {} if value is None else {"VAULTGATE_PROMPTS_FOLDER": value}

    assert Settings.from_env(env).prompts.folder == folder
    assert Settings.from_env(env).notices == ()


@pytest.mark.parametrize("value", ["../Prompts", "/abs/Prompts", "a\\b", ".prompts", "a//b"])
def test_a_bad_prompts_folder_is_one_line_naming_the_setting(value: str) -> None:
    with pytest.raises(ConfigError, match=r"^VAULTGATE_PROMPTS_FOLDER must be") as caught:
        Settings.from_env({"VAULTGATE_PROMPTS_FOLDER": value})

    assert "\n" not in str(caught.value)


class VaultInMemory:
    """Just what the prompt library asks of a backend, over a dict of notes (the library is
    under test here; the backends are tested end to end in tests/tools/test_prompts.py)."""

    def __init__(self, notes: dict[str, str]) -> None:
        self.notes = notes
        self.reads = 0
        self.version: int | None = 1  # the vault's generation; None: cannot tell (the plugin)

    def generation(self) -> int | None:
        return self.version

    async def list_files_below(self, directory: str) -> list[str]:
        found = [path for path in self.notes if path.startswith(directory)]
        if not found:
            raise NotFound(directory, "no such folder")
        return found

    async def list_directory(self, directory: str) -> list[str]:
        await self.list_files_below(directory)
        return []

    async def read_note(self, path: str | None) -> Note:
        assert path is not None
        self.reads += 1
        if path not in self.notes:
            raise NotFound(path, "no such note")
        return Note(path, self.notes[path])


def library_over(notes: dict[str, str]) -> tuple[PromptLibrary, VaultInMemory]:
    backend = VaultInMemory(notes)
    client: Any = backend
    return PromptLibrary(client, VaultLister(client), "Prompts/"), backend


@pytest.mark.anyio
async def test_a_check_before_any_client_listed_costs_nothing() -> None:
    library, backend = library_over({"Prompts/a.md": "#mcp-tools-prompt\nA"})

    assert not await library.check()
    assert backend.reads == 0


@pytest.mark.anyio
async def test_a_check_tells_a_change_of_what_clients_see_and_only_that() -> None:
    library, backend = library_over(
        {"Prompts/a.md": "#mcp-tools-prompt\nA {{x}}", "Prompts/b.md": "plain"}
    )
    listed = await library.list_for_client()
    assert [p.name for p in listed.prompts] == ["a"]

    backend.notes["Prompts/b.md"] = "still plain, longer"
    backend.notes["Prompts/a.md"] = "#mcp-tools-prompt\nA {{x}} reworded"
    assert not await library.check()  # the same names, descriptions and arguments

    backend.notes["Prompts/a.md"] = "#mcp-tools-prompt\nA {{x}} {{y|1}}"
    assert await library.check()
    assert not await library.check()  # announced once

    backend.notes["Prompts/c.md"] = "---\ntags: [mcp-tools-prompt]\n---\nC"
    assert await library.check()
    del backend.notes["Prompts/a.md"]
    assert await library.check()


@pytest.mark.anyio
async def test_the_list_is_kept_while_the_vault_generation_stands() -> None:
    library, backend = library_over({"Prompts/a.md": "#mcp-tools-prompt\nA"})
    await library.list_for_client()
    reads = backend.reads

    assert [p.name for p in (await library.list_for_client()).prompts] == ["a"]
    assert backend.reads == reads

    backend.notes["Prompts/b.md"] = "#mcp-tools-prompt\nB"  # written elsewhere
    backend.version = 2  # as the folder's watcher moves it
    assert [p.name for p in (await library.list_for_client()).prompts] == ["a", "b"]


@pytest.mark.anyio
async def test_a_list_through_the_plugin_alone_is_built_again_each_time() -> None:
    library, backend = library_over({"Prompts/a.md": "#mcp-tools-prompt\nA"})
    backend.version = None
    await library.list_for_client()

    backend.notes["Prompts/b.md"] = "#mcp-tools-prompt\nB"  # written elsewhere
    assert [p.name for p in (await library.list_for_client()).prompts] == ["a", "b"]


@pytest.mark.anyio
async def test_the_list_is_kept_until_a_write_makes_it_stale() -> None:
    library, backend = library_over({"Prompts/a.md": "#mcp-tools-prompt\nA"})
    await library.list_for_client()
    reads = backend.reads

    backend.notes["Prompts/b.md"] = "#mcp-tools-prompt\nB"  # generation not moved
    assert [p.name for p in (await library.list_for_client()).prompts] == ["a"]
    assert backend.reads == reads

    library.lister.invalidate()  # as AppState.vault_changed does after a write
    library.invalidate()
    with anyio.fail_after(1):
        await library.wait_until_stale()
    assert [p.name for p in (await library.list_for_client()).prompts] == ["a", "b"]


@pytest.mark.anyio
async def test_a_missing_prompts_folder_is_no_prompts() -> None:
    library, _ = library_over({"Elsewhere/a.md": "#mcp-tools-prompt\nA"})

    catalogue = await library.list_for_client()

    assert catalogue.prompts == ()


@pytest.mark.anyio
async def test_a_prompt_is_rendered_from_its_note_as_it_is_now() -> None:
    library, backend = library_over({"Prompts/a.md": "#mcp-tools-prompt\nA {{x}}"})
    await library.list_for_client()

    backend.notes["Prompts/a.md"] = "#mcp-tools-prompt\nNow {{x}} and {{y|2}}"
    rendered = await library.render("a", {"x": "1"})
    assert rendered.text == "Now 1 and 2"

    backend.notes["Prompts/a.md"] = "untagged now"
    with pytest.raises(InvalidArgument, match="no longer the prompt 'a'"):
        await library.render("a", {"x": "1"})


@pytest.mark.anyio
async def test_clients_asking_at_once_share_one_build() -> None:
    library, backend = library_over({f"Prompts/p{n}.md": "#mcp-tools-prompt\nP" for n in range(5)})

    async with anyio.create_task_group() as tg:
        for _ in range(4):
            tg.start_soon(library.list_for_client)

    assert backend.reads == 5


@pytest.mark.anyio
async def test_a_note_the_guard_refuses_to_read_is_no_prompt() -> None:
    class Refusing(VaultInMemory):
        async def read_note(self, path: str | None) -> Note:
            if path == "Prompts/kept out.md":
                raise AccessDenied(path, "read")
            return await super().read_note(path)

    backend = Refusing({"Prompts/a.md": "#mcp-tools-prompt\nA", "Prompts/kept out.md": "x"})
    client: Any = backend
    library = PromptLibrary(client, VaultLister(client), "Prompts/")

    assert [p.name for p in (await library.list_for_client()).prompts] == ["a"]


def placeholders(count: int, first: int = 0) -> str:
    return "".join(f"{{{{名前_{n}|🧪 #{n} 100%}}}} " for n in range(first, first + count))


def test_a_note_with_more_than_20_placeholders_is_left_out_saying_why() -> None:
    at_limit = describe_note("Prompts/Twenty 日本.md", "#mcp-tools-prompt\r\n" + placeholders(20))
    over = describe_note("Prompts/Many #1.md", "#mcp-tools-prompt\r\n" + placeholders(20_000))

    assert isinstance(at_limit, PromptNote)
    assert len(at_limit.arguments) == 20
    assert isinstance(over, LeftOut)
    assert over.name == "Many-1"
    assert "more than 20 different {{placeholders}}" in over.reason


def test_a_long_default_is_shown_cut_in_its_description() -> None:
    argument = PromptArgument("tone", required=False, default="😀" * 5_000)

    assert argument.description == f"Default: {'😀' * 99!r}…"


def test_the_prompts_offered_fit_the_list_bound_and_the_rest_are_left_out() -> None:
    long = "x" * 900
    notes = [
        prompt_of(
            f"Prompts/p{n:03} 📝.md", f"---\ntags: mcp-tools-prompt\ndescription: {long}\n---\n"
        )
        for n in range(200)
    ]
    small = prompt_of("Prompts/zz small.md", "#mcp-tools-prompt\nhi {{who}}")

    catalogue = build_catalogue([*notes, small])

    total = sum(prompts.listed_size(p) for p in catalogue.prompts)
    assert total <= 100_000
    assert 50 < len(catalogue.prompts) < 200
    assert catalogue.prompts[-1] == small  # one that fits after a full list still has its turn
    assert len(catalogue.left_out) == 201 - len(catalogue.prompts)
    assert "prompts/list holds at most 100,000 characters" in catalogue.left_out[0].reason
