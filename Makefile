# Vicaran: every target sets up what it needs first, so each works on a fresh clone.
HOST ?= 127.0.0.1
PORT ?= 8000
API_PORT ?= 8001
UV := $(shell command -v uv 2>/dev/null || echo "python3 -m uv")
STAMP := .venv/.vicaran-installed

.PHONY: install run web api test test-stress test-live bench lint format docs messages clean demo

install: $(STAMP) .env

# The libraries are compiled as they are installed: where PYTHONDONTWRITEBYTECODE is set, every
# process (each test worker, each server a test starts) would otherwise compile ADK again.
$(STAMP): pyproject.toml uv.lock
	@command -v uv >/dev/null 2>&1 || python3 -m uv --version >/dev/null 2>&1 || \
		python3 -m pip install --quiet uv
	$(UV) sync --frozen --extra postgres --compile-bytecode
	@touch $(STAMP)

.env:
	@cp .env.example .env
	@echo "Created .env from .env.example: add GOOGLE_API_KEY and TAVILY_API_KEY there."

run: install
	$(UV) run vicaran serve --host $(HOST) --port $(PORT)

demo: install
	$(UV) run vicaran demo --host $(HOST) --port $(PORT)

web: install
	@echo 'Note: `adk web` serves the dev UI only; its reports link the dashboard `make run` serves, at http://127.0.0.1:8000/investigations (or VICARAN_PUBLIC_URL)'
	$(UV) run adk web --host $(HOST) --port $(PORT) vicaran_agent

api: install
	$(UV) run adk api_server --host $(HOST) --port $(API_PORT) vicaran_agent

# Two workers more than the cores, stealing each other's queued tests: the suite waits on servers,
# subprocesses and the network a third of its time, and a few long tests must not end the run
# alone (on 2 cores: 232 s against 244 s for three workers each handed a fixed share). Bytecode is written for the run even where the machine's environment says
# PYTHONDONTWRITEBYTECODE: otherwise each worker and each server a test starts compiles the
# project and rewrites every test's asserts again (9 s of CPU a worker).
WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 2 )))
PYTEST := $(UV) run pytest -m "not live" -n $(WORKERS) --dist worksteal --durations=20

test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(PYTEST)

# The same suite beside two CPU-burning processes (scripts/burn.py stops them when it ends).
test-stress: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(UV) run python scripts/burn.py --burners 2 -- $(PYTEST)

test-live: $(STAMP)
	$(UV) run pytest -m live -p no:cacheprovider

bench: $(STAMP)
	$(UV) run python -m benchmarks.run --json test-artifacts/bench.json

lint: $(STAMP)
	$(UV) run lint-imports --no-cache
	$(UV) run ruff check .
	$(UV) run ruff format --check .
	$(UV) run python -m vicaran_agent.settings_help --check
	$(UV) run python -m vicaran_agent.catalogs --check

# The message catalogs (vicaran_agent/locale/) take the messages the code and templates use.
messages: $(STAMP)
	$(UV) run python -m vicaran_agent.catalogs --update

# docs/configuration.md from its one source (vicaran_agent/settings.toml and the defaults in config.py).
docs: $(STAMP)
	$(UV) run python -m vicaran_agent.settings_help

format: $(STAMP)
	$(UV) run ruff format .
	$(UV) run ruff check --fix .

clean:
	rm -rf .venv .pytest_cache .ruff_cache test-artifacts
