# Teen Patti 20-20 live-table backend. `make help` lists the targets.
include deploy/local/defaults.env
export TP_HOME TP_PG_PORT TP_PG_USER TP_PG_PASSWORD TP_KAFKA_PORT TP_KAFKA_CONTROLLER_PORT \
       TP_KAFKA_VERSION TP_REDIS_PORT TP_PROMETHEUS_PORT TP_ENV
# each process's credentials, which `make up` writes there: the tools' and tests' the admin's,
# each service's its own (docs/decisions/0050-a-principal-per-service.md)
TP_CREDENTIALS_DIR ?= $(abspath $(TP_HOME))/secrets
export TP_CREDENTIALS_DIR

# the test workers of `make test` (pytest-xdist), each test module in one of them
TEST_WORKERS ?= 2

UV := $(shell command -v uv 2>/dev/null || echo "$(HOME)/.local/bin/uv")
STACK := deploy/local/stack.sh

.PHONY: help install up migrate down status logs run test test-unit lint format contracts chaos bench bench-store bench-engine

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' Makefile | sed 's/:.*## /\t/' | expand -t 16

install: ## install uv, the locked Python dependencies, and the Debian tools the tests use (kubectl, promtool, chromium, Noto fonts, nodejs)
	@command -v uv >/dev/null 2>&1 || test -x "$(UV)" || { \
	    echo "==> installing uv from PyPI (pip install --user uv)"; \
	    python3 -m pip install --quiet --user uv 2>/dev/null || \
	        python3 -m pip install --quiet --user --break-system-packages uv; }
	@echo "==> the locked Python dependencies into .venv (uv sync; a first run downloads about 530 MB from PyPI)"
	@$(UV) sync --frozen --all-groups --quiet
	@$(STACK) tools

up: install ## start Kafka, Postgres, Redis and Prometheus (:19090) as local processes, with a user per service, and migrate the databases (idempotent)
	@$(STACK) up
	@$(UV) run teenpatti migrate

migrate: install ## apply the databases' migrations (the deploy step; `make up` runs it)
	@$(UV) run teenpatti migrate

down: ## stop the local stack (data is kept under $(TP_HOME))
	@$(STACK) down

status: ## show what runs, on which port, with which pid
	@$(STACK) status

logs: ## tail the logs of the local stack
	@$(STACK) logs

run: install up ## the main job: stack, services, simulated tables and players (ARGS="--tables 5")
	@$(UV) run python -m teenpatti_tools.devrun $(ARGS)

test: install up ## every test, against the real Postgres, Kafka and Redis: in $(TEST_WORKERS) workers side by side, then the chaos run alone
	@$(UV) run pytest -n $(TEST_WORKERS) --dist loadfile -m "not chaos"
	@$(UV) run pytest tests/chaos

test-unit: install ## the fast tests of pure logic only
	@$(UV) run pytest -m "not integration"

lint: install ## ruff, mypy and the import contracts (pyproject.toml's [tool.importlinter])
	@$(UV) run ruff check .
	@$(UV) run ruff format --check .
	@$(UV) run mypy shared/src tools/src services/*/src
	@$(UV) run lint-imports --no-cache

format: install ## format the code
	@$(UV) run ruff format .
	@$(UV) run ruff check --fix .

contracts: install ## rewrite from the code: docs/asyncapi.yaml (Kafka topics), docs/openapi/ (HTTP APIs) and the operator client, docs/configuration.md (settings), life-of-a-round's table of consumer groups, docs/events/ (event schemas, changed only compatibly), the Grafana dashboards, the PrometheusRule and deploy/kafka/acls.txt (Kafka ACLs)
	@$(UV) run python -m teenpatti_tools.contracts

chaos: install up ## seeded SIGKILLs of services, Kafka, Postgres, Redis under load; then every invariant (ARGS="--seed 7")
	@$(UV) run python -m teenpatti_tools.chaos $(ARGS)

bench: install up ## end-to-end benchmarks: intake, settlement, scan to result, rebuild, tables, seamless
	@$(UV) run python benchmarks/bench_all.py $(ARGS)

bench-store: install up ## event store benchmark against raw Postgres and the eventsourcing library
	@$(UV) run python benchmarks/bench_store.py

bench-engine: install ## rules engine benchmark and PAR sheet timing
	@$(UV) run python benchmarks/bench_engine.py
