import os
import stat

import pytest

from agreekit._io import atomic_write, write_json


def test_atomic_write_leaves_nothing_on_error(tmp_path):
    target = tmp_path / "out.json"
    with pytest.raises(RuntimeError):
        with atomic_write(target) as fh:
            fh.write("partial")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_permissions_follow_umask(tmp_path):
    old = os.umask(0o022)
    try:
        write_json(tmp_path / "a.json", {"x": float("nan"), "y": [1, 2]})
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "a.json").stat().st_mode)
    assert mode == 0o644
    assert (tmp_path / "a.json").read_text() == '{\n  "x": null,\n  "y": [\n    1,\n    2\n  ]\n}\n'
