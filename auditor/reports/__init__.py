"""Reports: audit reports (HTML and Markdown, with plots), proof reports, and `dpaudit demo`."""
