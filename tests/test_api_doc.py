"""The public API's documentation is runnable: docs/API.md is a doctest."""

import doctest
from pathlib import Path

API = Path(__file__).resolve().parent.parent / "docs" / "API.md"


def test_api_doc_examples_run() -> None:
    result = doctest.testfile(str(API), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 15
    assert result.failed == 0
