# The two front-door commands (`make demo`, `make test`) install first, so each is
# one command on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: install
	$(VENV)/bin/dpaudit demo

test: install
	$(PY) -m pytest -q
	$(VENV)/bin/dpaudit prove --json /tmp/dpaudit-proofs-ci.json >/dev/null

bench: install
	$(PY) -m bench

clean:
	rm -rf $(VENV) build *.egg-info
