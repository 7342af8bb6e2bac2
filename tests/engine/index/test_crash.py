"""A process killed (SIGKILL) while it builds the index leaves a file the next sync completes."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from tests.engine.index.conftest import contents, fresh_build, write

from vaultgate.engine.index import VaultIndex

_BUILD = """
import sys
from pathlib import Path
from vaultgate.engine.index import VaultIndex

def progress(done, total):
    print(done, total, flush=True)

with VaultIndex(Path(sys.argv[1]), location=Path(sys.argv[2])) as index:
    index.sync(progress)
print("finished", flush=True)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="no SIGKILL on this platform")
@pytest.mark.parametrize("batches_before_kill", [1, 3])
def test_a_build_killed_mid_way_is_completed_by_the_next_sync(
    tmp_path: Path, index_at: Path, batches_before_kill: int
) -> None:
    vault = tmp_path / "vault"
    for n in range(2_600):  # six batches
        write(vault, f"folder {n % 13}/note {n}.md", f"---\nn: {n}\n---\n# Note {n}\n#tag{n % 7}\n")
    with subprocess.Popen(
        [sys.executable, "-c", _BUILD, str(vault), str(index_at)],
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdout is not None
        for _ in range(batches_before_kill):
            line = child.stdout.readline()
            assert line.split()[0].isdigit(), "the build ended before it could be killed"
        child.send_signal(signal.SIGKILL)  # now, while it reads or writes the next batch
    assert child.returncode == -signal.SIGKILL

    check = sqlite3.connect(index_at)
    assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    stored = check.execute("SELECT count(*) FROM notes").fetchone()[0]
    check.close()
    assert 500 * batches_before_kill <= stored < 2_600

    with VaultIndex(vault, location=index_at) as index:
        report = index.sync()
    assert report.read == 2_600 - stored
    assert contents(index_at) == fresh_build(vault, tmp_path / "fresh.sqlite3")
