"""Configuration: every setting documented, clear hints for missing or wrong keys."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from pydantic import ValidationError

from tests.support.conversation import Conversation
from vicaran_agent import settings_help
from vicaran_agent.config import Settings, retired_querido_diario_host
from vicaran_agent.settings_help import env_default
from vicaran_agent.settings_help import shown_default as _shown_default

ROOT = Path(__file__).resolve().parent.parent


def test_env_example_and_readme_list_every_setting():
    names = {name.upper() for name in Settings.model_fields}
    example = set(
        re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M)
    )
    assert names - example == set()
    readme = (ROOT / "README.md").read_text()
    assert {n for n in names if f"`{n}`" not in readme} == set()


def _table_rows(markdown: str) -> list[list[str]]:
    """The cells (inline Markdown source) of every table row, header rows excluded."""
    rows: list[list[str]] = []
    in_body = False
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        if token.type in ("tbody_open", "tbody_close"):
            in_body = token.type == "tbody_open"
        elif in_body and token.type == "tr_open":
            rows.append([])
        elif in_body and token.type == "inline":
            rows[-1].append(token.content.strip())
    return rows


def test_the_configuration_page_is_written_from_its_one_source():
    """Every setting of `Settings` has its words in settings.toml, and nothing else does; the
    page in docs/ is what `make docs` writes from them (its defaults from `Settings`)."""
    names = {name.upper() for name in Settings.model_fields}
    described = [s.name for section in settings_help.sections()[1] for s in section.settings]
    assert sorted(names - set(described)) == [] and sorted(set(described) - names) == []
    assert len(described) == len(set(described))  # each in one section only
    assert (ROOT / "docs" / "configuration.md").read_text() == settings_help.page()
    rows = {row[0].strip("`"): row for row in _table_rows(settings_help.page())}
    default = Settings.model_fields["vicaran_relevance_threshold"].default
    assert rows["VICARAN_RELEVANCE_THRESHOLD"][1] == f"`{default}`"
    assert rows["VICARAN_TODAY"][1] == "— (the machine's date)"


def test_the_readmes_table_is_written_from_the_same_source_one_row_per_group():
    """Every setting is in one row of the README's short table, which is what `make docs`
    writes from settings.toml (its defaults from Settings unless a row says them)."""
    rows = settings_help.readme_rows()
    named = [name for row in rows for name in row.names]
    assert sorted(named) == sorted(name.upper() for name in Settings.model_fields)
    readme = (ROOT / "README.md").read_text()
    assert readme == settings_help.readme(readme)
    table = settings_help.readme_table()
    assert "| `VICARAN_QUALITY_THRESHOLD` | report quality score" in table
    assert table.count("\n") == len(rows) + 1


def test_env_example_is_written_from_the_same_source_with_each_settings_words():
    """`.env.example` is what `make docs` writes: each setting under what it does (the words of
    docs/configuration.md), at its default or, where settings.toml says, a commented example."""
    assert (ROOT / ".env.example").read_text() == settings_help.env_example()
    text = settings_help.env_example()
    relevance = text.index("VICARAN_RELEVANCE_THRESHOLD=")
    words = next(
        s.text
        for section in settings_help.sections()[1]
        for s in section.settings
        if s.name == "VICARAN_RELEVANCE_THRESHOLD"
    )
    above = text[:relevance].rsplit("\n\n", 1)[-1]
    assert " ".join(line.removeprefix("# ") for line in above.splitlines()) == words
    assert "\n# VICARAN_PUBLIC_URL=https://vicaran.newsroom.example\n" in text


async def test_missing_gemini_key_gets_one_clear_sentence(env):
    env.set(VICARAN_FAST_MODEL="gemini-3.5-flash", VICARAN_PRO_MODEL="gemini-3.8-flash")
    conversation = Conversation()
    events = await conversation.send("Investigate whether Acme polluted Riverton's water.")
    (reply,) = conversation.texts(events)
    sentence = reply.split("\n\n")[0]
    assert "GOOGLE_API_KEY" in sentence and ".env" in sentence
    assert sentence.count(". ") == 0 and "Traceback" not in reply
    assert env.services.jina.count() == 0 and env.services.tavily.count() == 0


async def test_the_first_answer_without_keys_names_every_missing_key(env):
    env.set(
        VICARAN_FAST_MODEL="gemini-3.5-flash",
        GOOGLE_API_KEY="",
        TAVILY_API_KEY="",
        FACTCHECK_API_KEY="",
    )
    conversation = Conversation()
    (reply,) = conversation.texts(await conversation.send("Investigate Acme in Riverton."))
    keys = reply.split("\n\n")[-1]
    assert keys.startswith("Not set: GOOGLE_API_KEY")
    assert "TAVILY_API_KEY (no web search" in keys and "FACTCHECK_API_KEY" in keys


async def test_vertex_without_project_says_what_to_set(env):
    env.set(VICARAN_FAST_MODEL="gemini-3.5-flash", GOOGLE_GENAI_USE_ENTERPRISE="1")
    conversation = Conversation()
    (reply,) = conversation.texts(await conversation.send("Investigate Acme in Riverton."))
    assert "GOOGLE_CLOUD_PROJECT" in reply and "GOOGLE_CLOUD_LOCATION" in reply


async def test_rejected_gemini_key_gets_one_clear_sentence(env):
    env.set(VICARAN_FAST_MODEL="scripted/bad-key")
    conversation = Conversation()
    (reply,) = conversation.texts(await conversation.send("Investigate Acme in Riverton."))
    assert reply.startswith("The Gemini API rejected the credentials")
    assert "GOOGLE_API_KEY" in reply and "Traceback" not in reply


async def test_unknown_model_name_is_explained(env):
    env.set(VICARAN_FAST_MODEL="nosuchprovider-model-x")
    conversation = Conversation()
    events = await conversation.send("Investigate Acme in Riverton.")
    (reply,) = conversation.texts(events)
    assert "VICARAN_FAST_MODEL" in reply


def test_the_readmes_table_shows_each_settings_default():
    """(An empty default is shown as what it means there: "the real date", the SQLite path.)"""
    rows = _table_rows((ROOT / "README.md").read_text())
    shown = {row[0].strip("`"): row[-1] for row in rows if len(row) == 3}
    defaults = {name.upper(): field.default for name, field in Settings.model_fields.items()}
    wrong = {
        name: (shown[name], _shown_default(default))
        for name, default in defaults.items()
        if name in shown and default != "" and not shown[name].startswith(_shown_default(default))
    }
    assert wrong == {}


def test_env_example_sets_every_setting_it_names_to_its_default():
    """`.env.example` is where a newcomer starts: a line it ships uncommented says the default
    (a commented line is an example of a change)."""
    defaults = {name.upper(): field.default for name, field in Settings.model_fields.items()}
    shipped = re.findall(r"^([A-Z][A-Z0-9_]+)=(.*)$", (ROOT / ".env.example").read_text(), re.M)
    wrong = {
        name: (value, env_default(defaults[name]))
        for name, value in shipped
        if name in defaults and value.strip() != env_default(defaults[name])
    }
    assert wrong == {}


def test_env_example_as_it_ships_is_a_valid_env_file(env):
    """`make run` copies `.env.example` to `.env`: every value in it must load as it is."""
    settings = Settings(_env_file=ROOT / ".env.example")  # type: ignore[call-arg]
    assert settings.vicaran_token_budget == 0
    assert settings.model_prices == {}


def test_querido_diario_defaults_to_the_production_host_in_code_and_in_env_example(env):
    """Querido Diário moved to api.queridodiario.org.br (its deployment repository, 2026-07);
    `make run` copies .env.example to .env, so the example must not pin the retired host."""
    env.monkeypatch.delenv("QUERIDO_DIARIO_BASE_URL")  # the fixture points it at the fake
    default = Settings(_env_file=None)  # type: ignore[call-arg]
    shipped = Settings(_env_file=ROOT / ".env.example")  # type: ignore[call-arg]

    assert default.querido_diario_base_url == "https://api.queridodiario.org.br"
    assert shipped.querido_diario_base_url == "https://api.queridodiario.org.br"
    assert not retired_querido_diario_host(shipped.querido_diario_base_url)


@pytest.mark.parametrize(
    ("url", "retired"),
    [
        ("https://api.queridodiario.ok.org.br", True),
        ("https://api.queridodiario.ok.org.br/", True),
        ("HTTPS://API.QueridoDiario.OK.org.br./gazettes", True),
        ("api.queridodiario.ok.org.br", True),
        ("https://queridodiario.ok.org.br/api", True),
        ("http://www.api.queridodiario.ok.org.br", True),
        ("https://api.queridodiario.org.br", False),
        ("http://127.0.0.1:8080", False),
        ("https://qd.example.org/queridodiario.ok.org.br", False),
        ("https://notqueridodiario.ok.org.br", False),
        ("", False),
        ("http://[::1", False),
    ],
)
def test_retired_querido_diario_host_names_only_the_old_ok_org_br_hosts(url, retired):
    assert retired_querido_diario_host(url) is retired


def test_the_gazette_budget_leaves_room_for_one_querido_diario_request():
    with pytest.raises(ValidationError, match="VICARAN_GAZETTE_TIMEOUT_SECONDS"):
        Settings(
            _env_file=None,  # type: ignore[call-arg]
            vicaran_gazette_timeout_seconds=30,
            vicaran_querido_diario_timeout_seconds=45,
        )
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.vicaran_gazette_timeout_seconds >= 3 * 36  # three rounds of cold queries


def test_settings_leave_the_environment_as_they_found_it(env, monkeypatch: pytest.MonkeyPatch):
    """Reading the settings changes nothing: a key that sits only in .env is put into the
    environment (for google-genai, which reads it there) by the `vicaran` command's start,
    as ADK's own CLI loads .env for `adk`, never by `get_settings`."""
    from vicaran_agent import cli, config

    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)

    def only_in_dotenv(**_: object) -> Settings:
        return Settings(_env_file=None, google_api_key="k1")  # type: ignore[call-arg]

    monkeypatch.setattr(config, "Settings", only_in_dotenv)
    config.forget_settings()
    try:
        assert config.get_settings().google_api_key == "k1"
        assert "GOOGLE_API_KEY" not in os.environ
        assert cli.main(["outbox", "status"]) == 0
        assert os.environ.get("GOOGLE_API_KEY") == "k1"  # the command's start put it there
        monkeypatch.setenv("GOOGLE_API_KEY", "from-the-environment")
        assert cli.main(["outbox", "status"]) == 0
        assert os.environ["GOOGLE_API_KEY"] == "from-the-environment"  # the environment wins
    finally:
        config.forget_settings()


def test_settings_come_from_arguments_then_the_environment_then_env_files(
    env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The order pydantic-settings kept, read without it: arguments, the environment (names
    in any case), the later `.env` file, the earlier one, the defaults; other names ignored."""
    first, second = tmp_path / "project.env", tmp_path / "here.env"
    first.write_text("VICARAN_SOURCE_LIMIT=7\nvicaran_max_user_urls=4\nNOT_A_SETTING=1\n")
    second.write_text("VICARAN_SOURCE_LIMIT=9\nVICARAN_MAX_RETRIES=5\n")
    monkeypatch.delenv("VICARAN_MAX_RETRIES", raising=False)
    monkeypatch.setenv("vicaran_max_retries", "3")
    settings = Settings(_env_file=(first, second))
    assert settings.vicaran_source_limit == 9  # the later file
    assert settings.vicaran_max_user_urls == 4  # a lower-case name in a file
    assert settings.vicaran_max_retries == 3  # the environment over the files
    assert Settings(_env_file=(first, second), vicaran_max_retries=1).vicaran_max_retries == 1
    assert Settings(_env_file=None).vicaran_source_limit == 0  # no file: the default
    assert Settings(_env_file=tmp_path / "missing.env").vicaran_source_limit == 0
    monkeypatch.setenv("VICARAN_SOURCE_LIMIT", "many")
    with pytest.raises(ValidationError) as raised:
        Settings(_env_file=None)
    assert raised.value.errors()[0]["loc"] == ("vicaran_source_limit",)
