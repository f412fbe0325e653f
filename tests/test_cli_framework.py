import subprocess
import sys

from agreekit.cli import main


def test_version(capsys):
    import pytest
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert "agreekit" in capsys.readouterr().out


def test_no_command_is_usage_error():
    proc = subprocess.run([sys.executable, "-m", "agreekit"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
