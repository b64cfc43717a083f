from auditor.cli.main import entry

if __name__ == "__main__":  # (not when a worker process re-imports the main module)
    entry()
