"""Built-in report sections, one module per benchmark; ``incanon.report.registry`` imports them
by name (``BUILTIN_SECTIONS``) when a report is first built."""
