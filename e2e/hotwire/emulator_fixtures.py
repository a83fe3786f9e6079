"""Fixtures for the Hotwire Native emulator tests: one Chromium per module, one app (own browser
context, so own cookies) per test. Imported by the test modules (not a conftest.py: e2e/conftest.py is
the `conftest` module the Rails fixture imports)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from emulator import Browser, HotwireApp  # noqa: E402


@pytest.fixture(scope="module")
def browser():
    chromium = Browser()
    yield chromium
    chromium.close()


@pytest.fixture
def make_app(browser):
    made = []

    def factory(start_location, **options):
        app = HotwireApp(browser, start_location, **options)
        made.append(app)
        return app

    yield factory
    for app in made:
        app.close()
