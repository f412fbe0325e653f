"""Bad input, round 4 (issue 36), High: output targets that are not regular files, ``-o`` that is a file.

An output path is never replaced by a file unless it is a regular file (or a new one):

* a character device (``mknod`` in a temporary folder: null, zero, full) and a FIFO are written in place;
  the node survives, a FIFO's reader gets the output, ``/dev/full`` is a one-line error;
* ``/dev/stdout``, ``/dev/fd/1`` and ``/proc/self/fd/1`` are standard output, as ``-`` is;
* a symbolic link to a file is written through (its target replaced atomically, the link kept); a
  dangling link, a link to a directory, a block device and a socket are refused with one line (exit 2).

CLI cases run in a real process (``python -m agreekit``: the output really goes to the node), with the
contract of ``tests/test_bad_input.py`` (exit 2, one stderr line naming the option, no traceback, nothing on
stdout, nothing changed in the folder).  The reference output of every command is the same command with
``-o -`` (stdout), read in the same test.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agreekit._io import atomic_write, check_output_path, is_stdout, write_files
from agreekit._validation import InputError

ROOT = Path(__file__).resolve().parents[1]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_root = pytest.mark.skipif(not IS_ROOT, reason="mknod of a character/block device needs root")

LABELS_U = "0\n0\n1\n1\n2\n2\n"
LABELS_V = "0\n0\n0\n1\n1\n1\n"
CONSENSUS = "a,b,c\n1,2,3\n2,1,3\n1,3,2\n"
SCORES = "".join(
    ["topic,A,B,C\n"] + [f"{300 + i},{(i * 7 % 10) / 10},{(i * 3 % 10) / 10},{(i % 4) / 4}\n" for i in range(1, 9)]
)
SCORES2 = "".join(
    ["topic,A,B,C\n"] + [f"{300 + i},{(i * 5 % 10) / 10},{(i * 3 % 7) / 7},{(i % 3) / 3}\n" for i in range(1, 9)]
)
QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d4 1\n2 0 d5 0\n2 0 d6 1\n"
RUN_A = "1 Q0 d1 1 3.0 A\n1 Q0 d2 2 2.0 A\n2 Q0 d4 1 1.0 A\n"
RUN_B = "1 Q0 d3 1 3.0 B\n1 Q0 d1 2 2.0 B\n2 Q0 d5 1 1.0 B\n2 Q0 d6 2 0.5 B\n"

# one command per subcommand family that writes through -o (argv without -o)
COMMANDS = {
    "table": ["table"],
    "clustering": ["clustering", "u.txt", "v.txt", "-m", "ari"],
    "consensus": ["consensus", "rankings.csv", "--method", "exact"],
    "correlate": ["correlate", "x.txt", "y.txt"],
    "bootstrap": ["bootstrap", "scores.csv", "--n-resamples", "40", "--rng", "1", "--pairs"],  # -o FILE has them
    "evaluate": ["evaluate", "qrels.txt", "runA.txt", "runB.txt", "--metrics", "AP"],
    "metaeval": ["metaeval", "AP=scores.csv", "P=scores2.csv", "--n-resamples", "20", "--rng", "1", "--no-pvalue"],
}


def _agreekit(args, cwd, **kw):
    return subprocess.run(
        [sys.executable, "-m", "agreekit", *args], capture_output=True, text=True, cwd=cwd, timeout=120, **kw
    )


@pytest.fixture
def work(tmp_path):
    files = {
        "u.txt": LABELS_U,
        "v.txt": LABELS_V,
        "rankings.csv": CONSENSUS,
        "scores.csv": SCORES,
        "scores2.csv": SCORES2,
        "qrels.txt": QRELS,
        "runA.txt": RUN_A,
        "runB.txt": RUN_B,
        "x.txt": "1\n2\n3\n4\n5\n",
        "y.txt": "2\n1\n3\n5\n4\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _reference(work, argv) -> str:
    res = _agreekit([*argv, "-o", "-"], work)
    assert res.returncode == 0, res.stderr
    return res.stdout


def _snapshot(root: Path) -> dict:
    out = {}
    for p in sorted(root.rglob("*")):
        st = os.lstat(p)
        if stat.S_ISREG(st.st_mode):
            out[str(p.relative_to(root))] = ("file", p.read_bytes())
        elif stat.S_ISLNK(st.st_mode):
            out[str(p.relative_to(root))] = ("link", os.readlink(p))
        else:
            out[str(p.relative_to(root))] = ("node", stat.S_IFMT(st.st_mode), st.st_rdev)
    return out


def _assert_refused(work, argv, fragments) -> str:
    before = _snapshot(work)
    res = _agreekit(argv, work)
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2, res.stderr
    assert res.stdout == ""
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f"agreekit {argv[0]}: error: "), res.stderr
    assert "Traceback" not in res.stderr
    for frag in fragments:
        assert frag in lines[0], (frag, lines[0])
    assert _snapshot(work) == before, "the refused command changed the folder"
    return lines[0]


def _same_output(got: str, ref: str) -> None:
    try:
        a, b = json.loads(got), json.loads(ref)
    except ValueError:
        assert got == ref
        return

    def strip(o):
        if isinstance(o, dict):
            return {k: strip(v) for k, v in o.items() if k not in ("seconds", "elapsed")}
        if isinstance(o, list):
            return [strip(v) for v in o]
        return o

    assert strip(a) == strip(b)


# ----------------------------------------------------------------------------- character devices


@needs_root
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_character_device_survives_every_command(work, command):
    node = work / "devnull"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    res = _agreekit([*COMMANDS[command], "-o", "devnull"], work)
    assert res.returncode == 0, res.stderr
    st = os.lstat(node)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert res.stdout == ""
    assert sorted(p.name for p in work.iterdir() if p.name.startswith(".")) == []  # no temporary left


@needs_root
@pytest.mark.parametrize("minor,name", [(3, "null"), (5, "zero")])
def test_other_discarding_devices(work, minor, name):
    node = work / name
    os.mknod(node, stat.S_IFCHR | 0o600, os.makedev(1, minor))
    res = _agreekit(["table", "-o", name], work)
    assert res.returncode == 0, res.stderr
    st = os.lstat(node)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, minor)
    assert stat.S_IMODE(st.st_mode) == 0o600


@needs_root
@pytest.mark.parametrize("command", ["table", "clustering", "consensus"])
def test_dev_full_is_a_one_line_error_and_survives(work, command):
    node = work / "full"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    line = _assert_refused(work, [*COMMANDS[command], "-o", "full"], ["`--output`", "'full'"])
    assert "No space left" in line


@needs_root
def test_block_device_is_refused(work):
    os.mknod(work / "blk", stat.S_IFBLK | 0o600, os.makedev(7, 250))
    _assert_refused(work, ["table", "-o", "blk"], ["`--output`", "'blk'", "block device"])


@needs_root
def test_symlink_to_a_character_device_is_written_in_place(work):
    os.mknod(work / "devnull", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    os.symlink("devnull", work / "link")
    res = _agreekit(["table", "-o", "link"], work)
    assert res.returncode == 0, res.stderr
    assert os.readlink(work / "link") == "devnull"
    assert stat.S_ISCHR(os.lstat(work / "devnull").st_mode)


# ----------------------------------------------------------------------------- FIFOs


def _fifo_reader(path: Path, box: list) -> threading.Thread:
    def read():
        with open(path, "rb") as fh:
            box.append(fh.read())

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_fifo_reader_gets_the_output(work, command):
    fifo = work / "pipe"
    os.mkfifo(fifo)
    box: list = []
    reader = _fifo_reader(fifo, box)
    res = _agreekit([*COMMANDS[command], "-o", "pipe"], work)
    reader.join(30)
    assert res.returncode == 0, res.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert res.stdout == ""
    _same_output(box[0].decode(), _reference(work, COMMANDS[command]))


def test_fifo_csv_output_and_symlinked_fifo(work):
    fifo = work / "pipe"
    os.mkfifo(fifo)
    os.symlink("pipe", work / "to_pipe")
    box: list = []
    reader = _fifo_reader(fifo, box)
    argv = ["clustering", "u.txt", "v.txt", "-m", "ari", "-m", "vi", "--format", "csv"]
    res = _agreekit([*argv, "-o", "to_pipe"], work)
    reader.join(30)
    assert res.returncode == 0, res.stderr
    assert box[0].decode() == _reference(work, argv)
    assert os.readlink(work / "to_pipe") == "pipe" and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_failed_command_writes_nothing_to_a_fifo(work):
    # the error comes after -o was checked: the reader sees end of file and no partial output
    fifo = work / "pipe"
    os.mkfifo(fifo)
    (work / "bad.txt").write_text("0\n0\n1\n")
    res = _agreekit(["clustering", "u.txt", "bad.txt", "-o", "pipe"], work)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# ----------------------------------------------------------------------------- symlinks


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_symlink_to_a_file_is_written_through(work, command):
    target = work / "real.out"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    os.symlink("real.out", work / "link.out")
    res = _agreekit([*COMMANDS[command], "-o", "link.out"], work)
    assert res.returncode == 0, res.stderr
    assert os.path.islink(work / "link.out") and os.readlink(work / "link.out") == "real.out"
    _same_output(target.read_text(), _reference(work, COMMANDS[command]))
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert not [p for p in work.iterdir() if p.name.startswith(".")]


def test_symlink_to_a_file_fast_case(work):
    (work / "real.json").write_text("old\n")
    os.symlink("real.json", work / "link.json")
    res = _agreekit(["consensus", "rankings.csv", "--method", "exact", "-o", "link.json"], work)
    assert res.returncode == 0, res.stderr
    assert os.readlink(work / "link.json") == "real.json"
    _same_output((work / "real.json").read_text(), _reference(work, ["consensus", "rankings.csv", "--method", "exact"]))


def test_symlink_chain_and_link_into_another_folder(work):
    (work / "sub").mkdir()
    (work / "sub" / "t.json").write_text("{}")
    os.symlink("sub/t.json", work / "l1")
    os.symlink("l1", work / "l2")
    res = _agreekit(["table", "-o", "l2"], work)
    assert res.returncode == 0, res.stderr
    assert os.readlink(work / "l2") == "l1" and os.readlink(work / "l1") == "sub/t.json"
    assert (work / "sub" / "t.json").read_text() == _reference(work, ["table"])
    assert not [p for p in (work / "sub").iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("dest", ["missing.json", "nodir/missing.json", "/nonexistent-agreekit/x.json"])
def test_dangling_symlink_is_refused(work, dest):
    os.symlink(dest, work / "dangling")
    line = _assert_refused(
        work, ["table", "-o", "dangling"], ["`--output`", "'dangling'", "symbolic link", "does not exist"]
    )
    assert dest in line


def test_symlink_to_a_directory_is_refused(work):
    (work / "d").mkdir()
    os.symlink("d", work / "dl")
    _assert_refused(work, ["table", "-o", "dl"], ["`--output`", "'dl'", "directory"])


def test_symlink_loop_is_refused(work):
    os.symlink("b", work / "a")
    os.symlink("a", work / "b")
    _assert_refused(work, ["table", "-o", "a"], ["`--output`", "'a'"])


def test_socket_is_refused(work):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(work / "sock"))
        _assert_refused(work, ["table", "-o", "sock"], ["`--output`", "'sock'", "socket"])
    finally:
        sock.close()


# ----------------------------------------------------------------------------- /dev/stdout


@pytest.mark.parametrize("spelling", ["/dev/stdout", "/proc/self/fd/1", "/dev/fd/1", "/dev//stdout"])
@pytest.mark.parametrize("command", ["table", "metaeval"])
def test_dev_stdout_is_standard_output(work, spelling, command):
    res = _agreekit([*COMMANDS[command], "-o", spelling], work)
    assert res.returncode == 0, res.stderr
    _same_output(res.stdout, _reference(work, COMMANDS[command]))
    assert os.path.islink("/dev/stdout") or stat.S_ISCHR(os.stat("/dev/stdout").st_mode)


def test_dev_stdout_redirected_to_a_file(work):
    out = work / "redirected.json"
    with open(out, "w") as fh:
        res = subprocess.run(
            [sys.executable, "-m", "agreekit", "table", "-o", "/dev/stdout"],
            stdout=fh,
            stderr=subprocess.PIPE,
            text=True,
            cwd=work,
            timeout=120,
        )
    assert res.returncode == 0, res.stderr
    assert out.read_text() == _reference(work, ["table"])
    assert os.path.islink("/dev/stdout")


# ----------------------------------------------------------------------------- -o is a file (metaeval, evaluate)


@pytest.mark.parametrize("name", ["res.json", "out", "res.csv", "sub/res.json"])
def test_metaeval_o_is_a_file(work, name):
    argv = COMMANDS["metaeval"]
    res = _agreekit([*argv, "-o", name], work)
    assert res.returncode == 0, res.stderr
    assert (work / name).is_file()
    _same_output((work / name).read_text(), _reference(work, argv))
    assert "warning" not in res.stderr


def test_metaeval_o_replaces_an_existing_file(work):
    (work / "res.json").write_text("old")
    res = _agreekit([*COMMANDS["metaeval"], "-o", "res.json"], work)
    assert res.returncode == 0, res.stderr
    assert json.loads((work / "res.json").read_text())["n_systems"] == 3


def test_metaeval_o_existing_directory_is_the_deprecated_output_dir(work):
    (work / "outdir").mkdir()
    res = _agreekit([*COMMANDS["metaeval"], "-o", "outdir"], work)
    assert res.returncode == 0, res.stderr
    assert "DeprecationWarning" in res.stderr and "--output-dir outdir" in res.stderr
    assert (work / "outdir" / "collection.json").is_file()


@pytest.mark.parametrize("name", ["out", "out.txt", "m.json"])
def test_evaluate_o_is_a_file(work, name):
    argv = [*COMMANDS["evaluate"], "--format", "json"]
    res = _agreekit([*argv, "-o", name], work)
    assert res.returncode == 0, res.stderr
    assert (work / name).is_file()
    assert json.loads((work / name).read_text()) == json.loads(_reference(work, argv))


def test_evaluate_o_without_suffix_single_metric_csv(work):
    res = _agreekit([*COMMANDS["evaluate"], "-o", "out"], work)
    assert res.returncode == 0, res.stderr
    assert (work / "out").read_text() == _reference(work, COMMANDS["evaluate"])
    assert (work / "out").read_text().startswith("topic,A,B\n")


def test_evaluate_several_metrics_csv_to_one_file_is_refused(work):
    _assert_refused(
        work,
        ["evaluate", "qrels.txt", "runA.txt", "--metrics", "AP,P@10", "-o", "out"],
        ["`--output-dir`", "is required"],
    )


# ----------------------------------------------------------------------------- the API (atomic_write, write_files)


def test_atomic_write_fifo_text_mode_keeps_newlines(tmp_path):
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    box: list = []
    reader = _fifo_reader(fifo, box)
    with atomic_write(fifo, newline="") as fh:
        fh.write("a,b\r\n1,2\n")
    reader.join(10)
    assert box[0] == b"a,b\r\n1,2\n"


def test_atomic_write_failure_writes_nothing_to_the_stream(tmp_path, capsys):
    with pytest.raises(RuntimeError):
        with atomic_write("/dev/stdout") as fh:
            fh.write("partial")
            raise RuntimeError("boom")
    assert capsys.readouterr().out == ""


def test_atomic_write_binary_to_stdout(capsysbinary):
    with atomic_write("/proc/self/fd/1", "wb") as fh:
        fh.write(b"\x00\x01")
    assert capsysbinary.readouterr().out == b"\x00\x01"


def test_write_files_through_a_link_and_to_stdout(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("old")
    os.symlink("t.csv", tmp_path / "l.csv")
    write_files({tmp_path / "l.csv": "new\n", "/dev/stdout": "to stdout\n", tmp_path / "n.csv": b"x"})
    assert os.readlink(tmp_path / "l.csv") == "t.csv" and (tmp_path / "t.csv").read_text() == "new\n"
    assert capsys.readouterr().out == "to stdout\n"
    assert (tmp_path / "n.csv").read_bytes() == b"x"


def test_write_files_link_and_its_target_are_one_path(tmp_path):
    (tmp_path / "t.csv").write_text("old")
    os.symlink("t.csv", tmp_path / "l.csv")
    with pytest.raises(InputError, match="twice"):
        write_files({tmp_path / "t.csv": "1", tmp_path / "l.csv": "2"})
    assert (tmp_path / "t.csv").read_text() == "old"


def test_write_files_dangling_link_is_refused_before_anything(tmp_path):
    (tmp_path / "a.csv").write_text("old")
    os.symlink("nowhere", tmp_path / "d.csv")
    with pytest.raises(InputError, match=r"`out`.*'.*d\.csv'.*symbolic link to 'nowhere'"):
        write_files({tmp_path / "a.csv": "new", tmp_path / "d.csv": "x"}, parameter="out")
    assert (tmp_path / "a.csv").read_text() == "old" and not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize(
    "path,expected",
    [
        ("-", True),
        ("/dev/stdout", True),
        ("/dev/fd/1", True),
        ("/proc/self/fd/1", True),
        ("/proc/{pid}/fd/1", True),
        ("/dev/stderr", False),
        ("/dev/fd/2", False),
        ("stdout", False),
        ("./-", False),
        (b"-", False),
        (1, False),
    ],
)
def test_is_stdout(path, expected):
    if isinstance(path, str):  # the process id is filled in here: xdist workers must collect the same ids
        path = path.replace("{pid}", str(os.getpid()))
    assert is_stdout(path) is expected


def test_check_output_path_accepts_devices_refuses_dangling(tmp_path):
    assert check_output_path("/dev/null", parameter="o") == Path("/dev/null")
    os.symlink("x/y", tmp_path / "d")
    with pytest.raises(InputError, match="`o`.*does not exist"):
        check_output_path(tmp_path / "d", parameter="o")
    # a dangling link among the folders of a new file
    with pytest.raises(InputError, match="`o`.*dangling symbolic link"):
        check_output_path(tmp_path / "d" / "f.json", parameter="o")
