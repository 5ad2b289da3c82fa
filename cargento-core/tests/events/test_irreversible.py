"""The fixed irreversible command shapes (the pure matcher; the run's record of reports is
cargento-web's, tested in ``cargento-web/tests/runtime/test_reports.py``)."""

from __future__ import annotations

import pytest
from cargento.events.irreversible import match_command
from hypothesis import given
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("command", "shapes"),
    [
        ("git push --force origin main", ("force-push",)),
        ("git push -f", ("force-push",)),
        ("git push -uf origin feature", ("force-push",)),
        ("git push --force-with-lease", ("force-push",)),
        ("git push --force-with-lease=main:abc origin", ("force-push",)),
        ("git push origin +main", ("force-push",)),
        ("git -C repo push --force", ("force-push",)),
        ("cd repo && git push -f origin HEAD", ("force-push",)),
        ("git reset --hard HEAD~1", ("hard-reset",)),
        ("GIT_DIR=.git git reset --hard", ("hard-reset",)),
        ("sudo rm -rf /var/lib/app", ("recursive-delete",)),
        ("rm -r build", ("recursive-delete",)),
        ("rm -R ./dist", ("recursive-delete",)),
        ("rm --recursive ~/old", ("recursive-delete",)),
        ("rm -rf /tmp/x /home/u/y", ("recursive-delete",)),
        ("rm -rf /tmp/../etc", ("recursive-delete",)),
        ("rm -rf /tmp", ("recursive-delete",)),
        ('psql -c "DROP TABLE users"', ("drop-table",)),
        ("psql --command='drop   table users' db", ("drop-table",)),
        ('psql -c"DROP TABLE t"', ("drop-table",)),
        ('mysql -e "DROP TABLE t" db', ("drop-table",)),
        ('mariadb --execute="Drop Table t"', ("drop-table",)),
        ('sqlite3 app.db "DROP TABLE t;"', ("drop-table",)),
        ('psql -c "DROP\nTABLE t"', ("drop-table",)),
        ("git reset --hard; git push -f", ("hard-reset", "force-push")),
        # Not matched: safe or out of scope.
        ("git push origin main", ()),
        ("git push --force-nope", ()),
        ("git reset --soft HEAD~1", ()),
        ("git log --force", ()),
        ("rm -f file.txt", ()),
        ("rm -rf /tmp/build", ()),
        ("rm -rf /var/tmp/cache /private/tmp/x", ()),
        ("rm -rf $TMPDIR/work", ()),
        ('echo "git push --force"', ()),
        ('psql -c "SELECT 1"', ()),
        ('echo "DROP TABLE t" | psql', ()),
        ("grep -r 'rm -rf /' .", ()),
        ("git push 'unclosed", ()),
        ("", ()),
    ],
)
def test_shapes(command: str, shapes: tuple[str, ...]) -> None:
    assert match_command(command) == shapes


@given(st.text(max_size=300))
def test_matching_never_raises(command: str) -> None:
    assert isinstance(match_command(command), tuple)
