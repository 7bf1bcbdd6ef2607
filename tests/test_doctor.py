"""`vicaran doctor`: one line per service the next run uses, against the loopback fakes."""

from __future__ import annotations

import pytest

from tests.fakes.gemini import FakeGeminiModels
from tests.fakes.jina import FakeJinaReader
from tests.fakes.newsroom import FakeNewsroom
from tests.fakes.server import FakeServer, RecordedRequest, Response
from tests.fakes.tavily import FakeTavily
from tests.support.api_server import free_port
from vicaran_agent import cli

SECRET = "newsroom-secret-for-doctor"
RETIRED = "https://api.queridodiario.ok.org.br"
NEW_HOST = "https://api.queridodiario.org.br"
SET_NEW_HOST = f"QUERIDO_DIARIO_BASE_URL={NEW_HOST}"
SERVICES = (
    "Model scripted/default",
    "Tavily",
    "Jina Reader",
    "Fact Check Tools",
    "Querido Diário",
    "Callback API",
    "Records database",
)


def doctor(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    """Run `vicaran doctor`; (exit code, the lines it printed, what it wrote on stderr)."""
    code = cli.main(["doctor", "--language", "en", *argv])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def line_of(lines: list[str], service: str) -> str:
    (found,) = [line for line in lines if line[2:].startswith(service)]
    return found


def failed(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("✗")]


def closed_url() -> str:
    return f"http://127.0.0.1:{free_port()}"


@pytest.fixture
def newsroom(env):
    with FakeNewsroom(secret=SECRET) as server:
        env.set(CALLBACK_API_URL=server.url + "/api/agent-callback", AGENT_SECRET=SECRET)
        yield server


def test_everything_fine_is_one_line_per_service_and_exit_0(env, newsroom, capsys):
    code, lines, _ = doctor(capsys)
    assert code == 0, lines
    for service in SERVICES:
        assert line_of(lines, service).startswith("✓"), lines
    assert failed(lines) == []
    services = env.services
    # Keys are checked without spending anything: no search, no page read, no record written.
    assert services.tavily.count("/usage", "GET") == 1 and services.tavily.count("/search") == 0
    assert [r.raw_path for r in services.jina.requests] == ["/"]
    assert len(services.factcheck.searches()) == 1
    assert services.querido_diario.count() == 1 and not services.querido_diario.searches()
    assert [r.status for r in newsroom.requests] == [400]  # the probe is refused: nothing saved
    assert "Querido Diário" in line_of(lines, "Querido Diário") and lines[-1]


@pytest.mark.parametrize(
    ("breakage", "service", "fix"),
    [
        ("tavily_key", "Tavily", "TAVILY_API_KEY"),
        ("jina_closed", "Jina Reader", "JINA_READER_BASE_URL"),
        ("querido_diario_closed", "Querido Diário", "QUERIDO_DIARIO_BASE_URL"),
        ("callback_secret", "Callback API", "AGENT_SECRET"),
        ("database", "Records database", "VICARAN_DATABASE_URL"),
        ("model", "Model nosuchprovider-model-x", "VICARAN_PRO_MODEL"),
    ],
)
def test_one_broken_service_exits_1_naming_it_and_its_fix(
    env, newsroom, capsys, breakage, service, fix
):
    if breakage == "tavily_key":
        env.set(TAVILY_API_KEY="tvly-wrong-key")
    elif breakage == "jina_closed":
        env.set(JINA_READER_BASE_URL=closed_url())
    elif breakage == "querido_diario_closed":
        env.set(QUERIDO_DIARIO_BASE_URL=closed_url())
    elif breakage == "callback_secret":
        env.set(AGENT_SECRET="not-the-newsroom-secret")
    elif breakage == "database":
        url = f"postgresql+psycopg://vicaran:db-password-xyz@127.0.0.1:{free_port()}/vicaran"
        env.set(VICARAN_DATABASE_URL=url)
    else:
        env.set(VICARAN_PRO_MODEL="nosuchprovider-model-x")
    code, lines, _ = doctor(capsys)
    assert code == 1
    (broken,) = failed(lines)
    assert broken[2:].startswith(service) and fix in broken
    assert service.split()[0] in lines[-1]  # the summary names what to fix
    assert "db-password-xyz" not in "\n".join(lines)


def test_optional_services_not_configured_are_said_without_failing(env, capsys):
    env.set(FACTCHECK_API_KEY="", TAVILY_API_KEY="")
    code, lines, _ = doctor(capsys)
    assert code == 0
    factcheck = line_of(lines, "Fact Check Tools")
    assert factcheck.startswith("–")
    assert "not configured" in factcheck and "FACTCHECK_API_KEY" in factcheck
    assert "without fact-check databases" in factcheck
    tavily = line_of(lines, "Tavily")
    assert tavily.startswith("–") and "TAVILY_API_KEY" in tavily
    assert line_of(lines, "Callback API").startswith("–")
    assert env.services.factcheck.count() == 0 and env.services.tavily.count() == 0


def test_the_retired_querido_diario_host_is_a_broken_line_and_a_start_up_warning(env, capsys):

    env.set(QUERIDO_DIARIO_BASE_URL=RETIRED)
    code, lines, err = doctor(capsys)
    assert code == 1
    (broken,) = failed(lines)
    assert broken[2:].startswith("Querido Diário") and NEW_HOST in broken
    assert env.services.querido_diario.count() == 0
    (warning,) = err.splitlines()  # one line, when the command starts
    assert NEW_HOST in warning and "QUERIDO_DIARIO_BASE_URL" in warning
    assert "environment" in warning  # where it was set


def test_another_command_warns_once_about_the_retired_host(env, capsys):

    env.set(QUERIDO_DIARIO_BASE_URL=RETIRED + "/")
    cli.main(["db", "status"])
    cli.main(["db", "status"])
    err = capsys.readouterr().err
    assert [line for line in err.splitlines() if NEW_HOST in line] == err.splitlines()
    assert len(err.splitlines()) == 1


def test_the_current_host_gets_no_warning(env, capsys):

    env.set(QUERIDO_DIARIO_BASE_URL=NEW_HOST)
    cli.main(["db", "status"])
    assert capsys.readouterr().err == ""


def test_keys_and_secrets_are_never_printed(env, capsys):
    key = "tvly-dev-0123456789abcdefSECRET"
    with FakeTavily(api_key=key) as tavily, FakeNewsroom(secret=SECRET) as newsroom:
        env.set(
            TAVILY_API_KEY=key,
            TAVILY_BASE_URL=tavily.url,
            CALLBACK_API_URL=newsroom.url + "/api/agent-callback",
            AGENT_SECRET=SECRET,
            FACTCHECK_API_KEY="factcheck-key-should-stay-hidden",
        )
        env.services.factcheck.api_key = "factcheck-key-should-stay-hidden"
        code, lines, err = doctor(capsys)
    text = "\n".join(lines) + err
    assert code == 0, lines
    for secret in (key, SECRET, "factcheck-key-should-stay-hidden"):
        assert secret not in text
    assert "tvly…CRET" in line_of(lines, "Tavily")  # masked: enough to tell keys apart


def test_tavily_line_shows_the_keys_credits_and_fails_when_they_are_spent(env, capsys):
    with FakeTavily(key_limit=3) as tavily:
        env.set(TAVILY_BASE_URL=tavily.url)
        code, lines, _ = doctor(capsys)
        assert code == 0
        assert "0 of 3 credits" in line_of(lines, "Tavily")
        tavily.credits_used = 3
        code, lines, _ = doctor(capsys)
    assert code == 1
    assert failed(lines) == [line_of(lines, "Tavily")]
    assert "3 of 3 credits" in failed(lines)[0]


def test_jina_with_a_key_says_its_balance_and_a_wrong_key_fails(env, capsys):
    with FakeJinaReader(api_key="jina_good", balance=123_456) as jina:
        env.set(JINA_READER_BASE_URL=jina.url, JINA_API_KEY="jina_good", VICARAN_JINA_RPM="0")
        code, lines, _ = doctor(capsys)
        assert code == 0
        assert "123,456" in line_of(lines, "Jina Reader")
        assert "200" in line_of(lines, "Jina Reader")  # the budget with a key
        env.set(JINA_API_KEY="jina_wrong")
        code, lines, _ = doctor(capsys)
    assert code == 1
    assert failed(lines) == [line_of(lines, "Jina Reader")]
    assert "JINA_API_KEY" in failed(lines)[0]


@pytest.mark.parametrize(
    ("key", "pro_model", "status", "words"),
    [
        ("gemini-test", "gemini-3.8-flash", "✓", "1,048,576"),
        ("wrong-key", "gemini-3.8-flash", "✗", "GOOGLE_API_KEY"),
        ("gemini-test", "gemini-9-nonexistent", "✗", "VICARAN_PRO_MODEL"),
        ("", "gemini-3.8-flash", "✗", "GOOGLE_API_KEY"),
    ],
)
def test_gemini_models_are_checked_without_spending_tokens(
    env, capsys, key, pro_model, status, words
):
    with FakeGeminiModels() as gemini:
        env.set(
            GOOGLE_GEMINI_BASE_URL=gemini.url,
            GOOGLE_API_KEY=key,
            VICARAN_FAST_MODEL="gemini-3.5-flash",
            VICARAN_PRO_MODEL=pro_model,
        )
        code, lines, _ = doctor(capsys)
        requests = gemini.requests
    pro = line_of(lines, f"Model {pro_model}")
    assert pro.startswith(status) and words in pro
    assert code == (0 if status == "✓" else 1)
    assert all(r.method == "GET" and r.path.startswith("/v1beta/models/") for r in requests)
    assert len(requests) == (0 if not key else 2)  # no key: said without asking


def test_checks_run_concurrently(env, capsys):
    for fake in (env.services.tavily, env.services.jina, env.services.querido_diario):
        fake.latency = 0.3
    env.services.factcheck.latency = 0.3
    code, _, _ = doctor(capsys)
    assert code == 0
    probes = [
        request
        for fake in (
            env.services.tavily,
            env.services.jina,
            env.services.querido_diario,
            env.services.factcheck,
        )
        for request in fake.requests
    ]
    assert len(probes) == 4
    # every probe had started before any of them was answered
    assert max(r.started for r in probes) < min(r.ended for r in probes)


def test_a_service_that_does_not_answer_is_cut_at_the_timeout(env, capsys):
    env.services.querido_diario.fail("hang")
    code, lines, _ = doctor(capsys, "--timeout", "1")
    assert code == 1
    (broken,) = failed(lines)
    assert broken[2:].startswith("Querido Diário") and "1 s" in broken
    assert line_of(lines, "Tavily").startswith("✓")


class Oversized(FakeServer):
    """Answers every request 200 with 1,500,000 bytes of JSON, streamed (a proxy gone wrong)."""

    def handle(self, request: RecordedRequest) -> Response:
        chunks = [b'{"cities": ["', *[b"x" * 100_000] * 15, b'"]}']
        return Response(200, {"Content-Type": "application/json"}, chunks)


def test_a_service_that_answers_more_than_a_check_reads_is_a_broken_line(env, capsys):
    with Oversized() as oversized:
        env.set(QUERIDO_DIARIO_BASE_URL=oversized.url)
        code, lines, _ = doctor(capsys)
        assert oversized.wait_idle()
    assert code == 1
    (broken,) = failed(lines)
    assert broken[2:].startswith("Querido Diário"), lines
    assert "answered more than 1,000,000 bytes" in broken and "QUERIDO_DIARIO_BASE_URL" in broken
    assert len(oversized.requests) == 1


def test_portuguese(env, newsroom, capsys):
    env.set(FACTCHECK_API_KEY="")
    code = cli.main(["doctor", "--language", "pt-BR"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    factcheck = line_of(lines, "Fact Check Tools")
    assert "não configurado" in factcheck and "FACTCHECK_API_KEY" in factcheck
    assert line_of(lines, "Banco de registros").startswith("✓")
    assert not any("not configured" in line for line in lines)


def test_an_unreachable_callback_api_and_a_half_configured_one(env, capsys):
    env.set(CALLBACK_API_URL=closed_url() + "/api/agent-callback", AGENT_SECRET=SECRET)
    code, lines, _ = doctor(capsys)
    assert code == 1 and failed(lines) == [line_of(lines, "Callback API")]
    assert "CALLBACK_API_URL" in failed(lines)[0]
    env.set(AGENT_SECRET="")
    code, lines, _ = doctor(capsys)
    assert code == 1 and "AGENT_SECRET" in failed(lines)[0]


def test_a_sqlite_file_not_made_yet_is_fine_and_nothing_is_created(env, capsys, tmp_path):
    path = tmp_path / "later" / "vicaran.db"
    env.set(VICARAN_DATABASE_URL=f"sqlite:///{path}")
    code, lines, _ = doctor(capsys)
    assert code == 0
    assert line_of(lines, "Records database").startswith("✓")
    assert not path.exists() and not path.parent.exists()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env.set(VICARAN_DATABASE_URL=f"sqlite:///{blocker / 'vicaran.db'}")
    code, lines, _ = doctor(capsys)
    assert code == 1 and failed(lines) == [line_of(lines, "Records database")]


def test_the_app_logs_the_retired_host_once_as_adk_loads_it(env, caplog, capsys):
    from vicaran_agent import agent

    env.set(QUERIDO_DIARIO_BASE_URL=RETIRED)
    with caplog.at_level("WARNING"):
        agent.importable_app()
        agent.importable_app()
    (record,) = [r for r in caplog.records if NEW_HOST in r.getMessage()]
    assert record.levelname == "WARNING"
    cli.main(["db", "status"])  # the same process: not said twice
    assert NEW_HOST not in capsys.readouterr().err


RECORDED = [
    ("tavily-usage", "ok", "Tavily", "✓", "150 of 1,000 credits used this month (plan Bootstrap"),
    ("tavily-usage", "unlimited", "Tavily", "✓", "12 credits used this month, no limit"),
    ("tavily-usage", "spent", "Tavily", "✗", "1,000 of 1,000 credits"),
    ("tavily-usage", "refused", "Tavily", "✗", "TAVILY_API_KEY"),
    ("jina-index", "anonymous", "Jina Reader", "✓", "without a key"),
    ("jina-index", "keyed", "Jina Reader", "✓", "9,876,543 tokens left"),
    ("gemini-models", "get", "Model gemini-3.5-flash", "✓", "up to 1,048,576 input tokens"),
    ("gemini-models", "key-invalid", "Model gemini-3.5-flash", "✗", "GOOGLE_API_KEY"),
    ("gemini-models", "not-found", "Model gemini-3.5-flash", "✗", "VICARAN_FAST_MODEL"),
    ("querido-diario-city", "porto-alegre", "Querido Diário", "✓", "requests/min"),
    ("querido-diario-city", "moved", "Querido Diário", "✗", SET_NEW_HOST),
    ("factcheck-probe", "empty", "Fact Check Tools", "✓", "accepted"),
    (
        "factcheck-probe",
        "service-disabled",
        "Fact Check Tools",
        "✗",
        "https://console.developers.google.com/apis/api/factchecktools.googleapis.com/overview"
        "?project=123456789012",
    ),
]


@pytest.mark.parametrize(
    ("service", "name", "line", "status", "words"), RECORDED, ids=lambda v: str(v)[:24]
)
def test_the_checks_read_the_real_services_recorded_answers(
    env, capsys, service, name, line, status, words
):
    from tests.support import contracts

    recorded = contracts.load(service, name)
    with contracts.serve(recorded) as server:
        if service == "tavily-usage":
            env.set(TAVILY_BASE_URL=server.url)
        elif service == "jina-index":
            env.set(JINA_READER_BASE_URL=server.url)
            if name == "keyed":
                env.set(JINA_API_KEY="jina_0123456789abcdef")
        elif service == "gemini-models":
            env.set(
                GOOGLE_GEMINI_BASE_URL=server.url,
                GOOGLE_API_KEY="gemini-key",
                VICARAN_FAST_MODEL="gemini-3.5-flash",
                VICARAN_PRO_MODEL="gemini-3.5-flash",
            )
        elif service == "querido-diario-city":
            env.set(QUERIDO_DIARIO_BASE_URL=server.url)
        else:
            env.set(FACTCHECK_BASE_URL=server.url)
        code, lines, _ = doctor(capsys)
    found = line_of(lines, line)
    assert found.startswith(status) and words in found, found
    assert code == (0 if status == "✓" else 1)


@pytest.mark.parametrize("migrated", [True, False], ids=["migrated", "empty"])
def test_a_postgresql_records_database_is_opened_and_its_schema_compared(
    env, capsys, tmp_path, migrated
):
    from tests.support.databases import records_database

    with records_database("postgresql", tmp_path, migrated=migrated) as url:
        env.set(VICARAN_DATABASE_URL=url)
        code, lines, _ = doctor(capsys)
    database = line_of(lines, "Records database")
    if migrated:
        assert code == 0 and database.startswith("✓") and "up to date" in database
    else:
        assert code == 1 and database.startswith("✗") and "vicaran db upgrade" in database


def test_the_adk_session_store_is_checked_when_configured(env, capsys, tmp_path):
    from tests.support.databases import POSTGRES_URL, sessions_database

    code, lines, _ = doctor(capsys)
    assert not [line for line in lines if "ADK session store" in line]  # not configured
    closed = f"postgresql+asyncpg://vicaran:pw-sessions-1@127.0.0.1:{free_port()}/vicaran"
    env.set(VICARAN_SESSION_DB_URL=closed)
    code, lines, _ = doctor(capsys)
    assert code == 1 and failed(lines) == [line_of(lines, "ADK session store")]
    assert "VICARAN_SESSION_DB_URL" in failed(lines)[0]
    assert "pw-sessions-1" not in "\n".join(lines)
    env.set(VICARAN_SESSION_DB_URL="memory://")
    code, lines, _ = doctor(capsys)
    assert code == 0 and line_of(lines, "ADK session store").startswith("✓")
    if POSTGRES_URL:
        with sessions_database("postgresql", tmp_path) as url:
            env.set(VICARAN_SESSION_DB_URL=url)
            code, lines, _ = doctor(capsys)
        assert code == 0 and line_of(lines, "ADK session store").startswith("✓"), lines


def test_an_error_text_that_repeats_a_secret_is_shown_masked(env):
    from vicaran_agent import doctor as checks
    from vicaran_agent.config import get_settings

    key = "tvly-dev-0123456789abcdefSECRET"
    env.set(TAVILY_API_KEY=key)
    detail = checks.Doctor(get_settings()).detail(RuntimeError(f"bad key {key}\nsecond line"))
    assert detail == "bad key tvly…CRET"


def test_the_services_doc_covers_every_line_doctor_prints():
    """docs/services.md: a section per service, with every setting a doctor line names."""
    import re
    from pathlib import Path

    from vicaran_agent.messages.doctor import MESSAGES

    doc = (Path(__file__).resolve().parent.parent / "docs" / "services.md").read_text()
    headings = " ".join(re.findall(r"^## (.+)$", doc, re.M)).lower()
    for word in ("gemini", "tavily", "jina reader", "fact check tools", "querido diário"):
        assert word in headings
    assert "callback api" in headings and "records database" in headings
    english = " ".join(
        text if isinstance(text, str) else " ".join(text) for text in MESSAGES.values()
    )
    named = set(re.findall(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b", english)) - {"API_KEY_INVALID"}
    assert {name for name in named if f"`{name}`" not in doc and name not in doc} == set()
    assert "vicaran doctor" in doc and "--timeout" in doc


PLUGIN = """
from google.adk.models import BaseLlm, LLMRegistry


class DoctorTestModel(BaseLlm):
    @classmethod
    def supported_models(cls):
        return [r"doctortest/.*"]


LLMRegistry.register(DoctorTestModel)
"""


def test_model_plugins_are_loaded_before_the_names_are_resolved(env, capsys, tmp_path, monkeypatch):
    (tmp_path / "doctor_test_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    env.set(VICARAN_PRO_MODEL="doctortest/newsroom-model")
    code, lines, _ = doctor(capsys)
    assert code == 1 and "VICARAN_PRO_MODEL" in failed(lines)[0]  # no plugin: unknown
    env.set(VICARAN_MODEL_PLUGINS="doctor_test_plugin")
    code, lines, _ = doctor(capsys)
    assert code == 0, lines
    assert "DoctorTestModel" in line_of(lines, "Model doctortest/newsroom-model")
    env.set(VICARAN_MODEL_PLUGINS="doctor_test_plugin,no_such_plugin_module")
    code, lines, _ = doctor(capsys)
    (broken,) = failed(lines)
    assert code == 1 and broken[2:].startswith("Model plugins")
    assert "no_such_plugin_module" in broken and "VICARAN_MODEL_PLUGINS" in broken
