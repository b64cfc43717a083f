# The two front-door commands (`make demo`, `make test`) install first, so each is
# one command on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test bench baseline clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: install
	$(VENV)/bin/dpaudit demo

test: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest -q -n auto
	$(VENV)/bin/dpaudit prove --quiet --baseline reports/proofs.json

# The bench also audits third-party libraries and an Opacus DP-SGD step: it installs the
# optional [libs] and [opacus] extras.
bench: install
	$(PY) -m pip install --quiet -e '.[test,libs,opacus]'
	$(PY) -m bench

# Accept the current proof verdicts as the new CI baseline (review the diff before committing).
baseline: install
	$(VENV)/bin/dpaudit prove --quiet --no-timings --json reports/proofs.json

clean:
	rm -rf $(VENV) build *.egg-info
