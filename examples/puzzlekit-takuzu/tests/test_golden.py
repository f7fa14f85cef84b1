"""The golden corpora in tests/golden (one test per case, by puzzlekit's pytest plugin).

Rebuild a corpus after a deliberate change with
``puzzlekit regress --golden tests/golden --schema takuzu-6x6 --update``.
"""


def test_golden(golden_case):
    golden_case.check()
