from auditor.cli.main import entry

entry()
