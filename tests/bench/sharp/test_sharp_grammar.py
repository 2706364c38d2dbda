"""English morphology of claim templates comes from maintained libraries (inflect, lemminflect)."""

from __future__ import annotations

import pytest

from incanon.bench.sharp.lang._en_grammar import article, gerund, pluralize, third_person


@pytest.mark.parametrize(("word", "expected"), [
    ("FBI agent", "an"), ("x-ray", "an"), ("hour", "an"), ("university", "a"), ("UN official", "a"),
    ("apple", "an"), ("European", "a"),
])
def test_articles_follow_the_sound(word, expected):
    assert article(word) == expected


@pytest.mark.parametrize(("word", "expected"), [
    ("criterion", "criteria"), ("analysis", "analyses"), ("knife", "knives"), ("child", "children"),
    ("bus", "buses"), ("city", "cities"), ("sheep", "sheep"), ("Cat", "Cats"),
])
def test_plurals(word, expected):
    assert pluralize(word) == expected


@pytest.mark.parametrize(("phrase", "ing", "third"), [
    ("panic", "panicking", "panics"), ("cut bread", "cutting bread", "cuts bread"),
    ("make tea", "making tea", "makes tea"), ("study hard", "studying hard", "studies hard"),
    ("lie down", "lying down", "lies down"), ("go home", "going home", "goes home"),
    ("picnic", "picnicking", "picnics"),
])
def test_verb_forms(phrase, ing, third):
    assert gerund(phrase) == ing and third_person(phrase) == third
