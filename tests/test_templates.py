import pytest

from incanon.errors import ConfigError, InputError, NotFoundError
from incanon.templates import PromptLibrary


def test_builtin_renders_and_records_fingerprint():
    lib = PromptLibrary()
    text = lib.render("judge_spatiotemporal", character="Ada", when="now", question="Q", answer="A", label="L")
    assert "Ada" in text and "Score: 0" in text
    assert len(lib.used["judge_spatiotemporal"]) == 16


def test_missing_variable_is_an_error_not_blank_text():
    with pytest.raises(InputError, match="was not given"):
        PromptLibrary().render("judge_spatiotemporal", character="Ada")


def test_user_override_wins(tmp_path):
    (tmp_path / "judge_spatiotemporal.j2").write_text("Custom {{ character }}")
    lib = PromptLibrary(tmp_path)
    assert lib.render("judge_spatiotemporal", character="Ada") == "Custom Ada"
    assert lib.source("roleplay_system")[1].startswith("incanon/")  # others fall back


def test_sandbox_blocks_attribute_escapes(tmp_path):
    (tmp_path / "evil.j2").write_text("{{ x.__class__.__mro__ }}")
    with pytest.raises(Exception):
        PromptLibrary(tmp_path).render("evil", x="s")


def test_bad_override_folder_and_unknown_template(tmp_path):
    with pytest.raises(ConfigError):
        PromptLibrary(tmp_path / "nope")
    with pytest.raises(NotFoundError):
        PromptLibrary().render("no_such_template")


def test_syntax_error_names_file_and_line(tmp_path):
    (tmp_path / "broken.j2").write_text("line one\n{% if %}")
    with pytest.raises(InputError, match=r"broken.j2 \(line 2\)"):
        PromptLibrary(tmp_path).render("broken")
