"""Built-in report sections, one module per benchmark (imported for their registrations)."""

from incanon.report.sections import coser, demo, dialsim, generic, rolerag, sharp, timechara  # noqa: F401
