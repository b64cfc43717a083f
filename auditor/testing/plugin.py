"""pytest plugin (entry point `dpaudit`): the `assert_dp` fixture.

def test_mechanism(assert_dp):
    assert_dp(my_mechanism, pairs=[(0, 1)], epsilon=0.5)
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")  # stateless: usable in @given tests, whose health check
def assert_dp():  # refuses function-scoped fixtures
    """The :func:`auditor.testing.assertions.assert_dp` function, for tests that prefer fixtures."""
    from auditor.testing.assertions import assert_dp as check

    return check
