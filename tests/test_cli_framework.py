import subprocess
import sys

from agreekit.cli import main


def test_version(capsys):
    import pytest

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert "agreekit" in capsys.readouterr().out


def test_no_command_prints_the_command_list():
    # issue 13: a bare `agreekit` prints the command list (exit 0) instead of a usage error
    proc = subprocess.run([sys.executable, "-m", "agreekit"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert "commands:" in proc.stdout and "consensus" in proc.stdout
    assert "Traceback" not in proc.stderr
